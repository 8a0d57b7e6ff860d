package io.jtick.core.testing;

import io.netty.util.ResourceLeakDetector;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs {@link CountingLeakDetector} when the JUnit session opens, before any test class can load
 * a Netty buffer class, and turns Netty's leak detection to paranoid (every buffer tracked) unless
 * the run chose a level. Registered through {@code META-INF/services} in tick-core's test jar, so
 * every module that depends on that jar gets it.
 */
public final class LeakCheckSession implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(final LauncherSession session) {
        CountingLeakDetector.install();
        if (System.getProperty("io.netty.leakDetection.level") == null && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        }
    }
}
