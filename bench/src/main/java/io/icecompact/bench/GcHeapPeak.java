package io.icecompact.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap a run needed, two ways: the most heap still in use right after a garbage collection
 * (what the run kept alive, plus garbage the collection left in old regions: the figure that
 * decides an {@code OutOfMemoryError}), and the sum of the heap pools' peak usage (an upper bound,
 * garbage included, since each pool peaks at its own moment). Unlike sampling, the notifications
 * see every collection, however short the peak.
 */
final class GcHeapPeak implements NotificationListener {
  private final List<MemoryPoolMXBean> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(pool -> pool.getType() == MemoryType.HEAP)
          .toList();
  private final Set<String> heapPoolNames =
      heapPools.stream().map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
  private final AtomicLong afterGcMax = new AtomicLong();
  private final AtomicLong collections = new AtomicLong();

  private GcHeapPeak() {}

  /** Starts listening to every collector, with the pools' peaks reset to now. */
  static GcHeapPeak start() {
    GcHeapPeak peak = new GcHeapPeak();
    peak.heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(peak, null, null);
      }
    }
    return peak;
  }

  @Override
  public void handleNotification(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (var pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPoolNames.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    afterGcMax.accumulateAndGet(used, Math::max);
    collections.incrementAndGet();
  }

  /** The most heap in use after any collection so far; 0 before the first one. */
  long afterGcMax() {
    return afterGcMax.get();
  }

  long collections() {
    return collections.get();
  }

  /** The sum of the heap pools' peak usage since {@link #start}. */
  long poolPeaks() {
    return heapPools.stream()
        .map(MemoryPoolMXBean::getPeakUsage)
        .mapToLong(MemoryUsage::getUsed)
        .sum();
  }
}
