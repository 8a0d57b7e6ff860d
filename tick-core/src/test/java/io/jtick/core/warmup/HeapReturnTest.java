package io.jtick.core.warmup;

import io.jtick.core.testing.TestSupport;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.lang.management.GarbageCollectorMXBean;

import static org.assertj.core.api.Assertions.assertThat;

class HeapReturnTest {
    @Test
    void shouldRunOneFullCollection() {
        final GarbageCollectorMXBean full = TestSupport.g1FullCollections();
        final long before = full.getCollectionCount();
        HeapReturn.afterJob("a test", LoggerFactory.getLogger(HeapReturnTest.class));
        assertThat(full.getCollectionCount()).isGreaterThan(before);
    }
}
