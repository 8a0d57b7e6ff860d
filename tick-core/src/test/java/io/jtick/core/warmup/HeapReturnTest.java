package io.jtick.core.warmup;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class HeapReturnTest {
    @Test
    void shouldRunOneFullCollection() {
        final GarbageCollectorMXBean full = ManagementFactory.getGarbageCollectorMXBeans().stream()
            .filter(b -> b.getName().equals("G1 Old Generation")).findFirst().orElse(null);
        assumeTrue(full != null, "the full collections are counted apart from the young ones only under G1 here");
        final long before = full.getCollectionCount();
        HeapReturn.afterJob("a test", LoggerFactory.getLogger(HeapReturnTest.class));
        assertThat(full.getCollectionCount()).isGreaterThan(before);
    }
}
