package dev.skein.neo4j;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.Config;
import org.neo4j.configuration.FulltextSettings;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilderImplementation;
import org.neo4j.graphdb.facade.DatabaseManagementServiceFactory;
import org.neo4j.graphdb.facade.ExternalDependencies;
import org.neo4j.graphdb.factory.module.GlobalModule;
import org.neo4j.io.ByteUnit;
import org.neo4j.io.fs.FileSystemAbstraction;
import org.neo4j.io.pagecache.PageCache;
import org.neo4j.io.pagecache.impl.muninn.MuninnPageCache;
import org.neo4j.kernel.impl.pagecache.ConfiguringPageCacheFactory;
import org.neo4j.kernel.monitoring.tracing.Tracers;
import org.neo4j.logging.internal.LogService;
import org.neo4j.memory.MemoryPools;
import org.neo4j.scheduler.JobScheduler;
import org.neo4j.time.SystemNanoClock;

/**
 * Runs Neo4j Community embedded, with only the Bolt connector, listening on loopback.
 *
 * Environment:
 *   SKEIN_NEO4J_HOME      store directory (created when missing)
 *   SKEIN_NEO4J_PORT      Bolt port on 127.0.0.1
 *   SKEIN_NEO4J_PASSWORD  password of the `neo4j` user, set on every start so that only the
 *                         service that holds it (read from a mode-600 file) can connect
 *   SKEIN_NEO4J_PAGECACHE page cache size, e.g. 256m (modest by default: it shares a small machine)
 *
 * Prints "SKEIN_NEO4J_READY <port>" on stdout once Bolt accepts connections, and shuts the
 * database down cleanly on SIGTERM/SIGINT or when its stdin closes (the parent died), halting if
 * that takes over SHUTDOWN_LIMIT. Holds SKEIN_NEO4J_HOME/launcher.lock (which names its pid) while
 * it runs; at start it waits for an earlier launcher on the same store to be gone, printing
 * "SKEIN_NEO4J_WAITING <pid>" first (docs/decisions/032-clean-stops.md).
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        watchParent();
        try {
            run();
        } catch (Exception | Error e) {
            // Fail fast and loudly: the service waits for the ready line and shows this output.
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        Path home = Path.of(required("SKEIN_NEO4J_HOME")).toAbsolutePath();
        int port = Integer.parseInt(required("SKEIN_NEO4J_PORT"));
        String password = required("SKEIN_NEO4J_PASSWORD");
        String pageCache = System.getenv().getOrDefault("SKEIN_NEO4J_PAGECACHE", "256m");
        Files.createDirectories(home);
        lockHome(home);

        DatabaseManagementService dbms = new CommunityBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                .setConfig(GraphDatabaseSettings.tx_state_max_off_heap_memory, ByteUnit.mebiBytes(256))
                .setConfig(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(5))
                // A plan is kept at least an hour (Neo4j's default is 10 s). Planning Skein's larger
                // queries takes 0.2-2 s of CPU (hydrate, write-post, the channel view), and when a plan
                // goes stale every request running that query plans it again at once: 16 posts in
                // flight all stalled 1-2.5 s together, each time a young store's statistics had grown
                // enough (a minute apart at the shortest, with the earlier setting). Skein's queries
                // start from unique ids and indexed keys, so a plan made on a smaller store stays good;
                // plans still follow the statistics, an hour later.
                .setConfig(GraphDatabaseSettings.cypher_min_replan_interval, Duration.ofHours(1))
                // Cypher compiles a query's expressions to bytecode with its plan, not at its tenth
                // run. By default (ONLY_WHEN_HOT) a query's expressions are interpreted until it has
                // run ten times, and the run that compiles them waits: for the post's write and the
                // channel view that was 100-200 ms, so the tenth post into a channel reached its
                // members in 150-220 ms where the others took 40 (2026-11-27, docs/benchmarks.md).
                // The first run of a query pays its planning anyway.
                .setConfig(GraphDatabaseInternalSettings.cypher_expression_engine,
                        GraphDatabaseInternalSettings.CypherExpressionEngine.COMPILED)
                // The eventually consistent full-text indexes (message content and tags) refresh their
                // Lucene searcher at most once a second instead of after every transaction that
                // touches a message. A refresh per post wrote a tiny segment per post, and writing and
                // merging those took nearly half of Neo4j's thread samples while posting (a JFR profile
                // of the peer run's posting rows). A search still sees every
                // committed message: its awaitEventuallyConsistentIndexRefresh() first applies the
                // pending updates and, with an interval set, refreshes the searchers itself.
                .setConfig(FulltextSettings.eventually_consistent_refresh_interval, Duration.ofSeconds(1))
                // The pause monitor sleeps this long between its measurements; at its default (100 ms)
                // it woke ten times a second and was a tenth of an idle service's CPU. A stall that
                // matters (a second or more) is still measured.
                .setConfig(GraphDatabaseInternalSettings.vm_pause_monitor_measurement_duration, Duration.ofSeconds(1))
                // Neo4j's data collector is always collecting: it keeps the last 8,192 statements with
                // their parameters (message texts, among them) for db.stats.retrieve, which Skein never
                // calls. Right after the peer run's seeding that was 30 of the heap's 87 live MB
                // (a class histogram, 2026-11-29); 0 turns it off.
                .setConfig(GraphDatabaseInternalSettings.data_collector_max_recent_query_count, 0)
                // Bolt's event loops stop at once at shutdown. By default Netty waits for 5 quiet
                // seconds first, though by then the databases are already stopped: that was 5 of the
                // 5.5 s a stop of an idle service took (2026-12-02).
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            haltAfter(SHUTDOWN_LIMIT);
            dbms.shutdown();
            stopped.countDown();
        }, "skein-neo4j-shutdown"));

        setPassword(dbms, password);
        startIdleCollector();
        System.out.println("SKEIN_NEO4J_READY " + port);
        System.out.flush();
        stopped.await();
    }

    /**
     * Builds the DBMS as Neo4j's DatabaseManagementServiceBuilder does (Community edition, every
     * extension found), except that its page cache runs without the background eviction thread. That
     * thread wakes every 10 ms whether or not anything happens, to keep a few free pages ahead of
     * page faults, and was 0.4-0.6% of a core on an idle service, half of the JVM's idle CPU (no
     * setting turns it off). Without it a page fault that finds no free page evicts one itself
     * (MuninnPageCache's cooperative eviction, writing the page out first when it is dirty), so a
     * store larger than the cache still works; only such faults pay for the eviction. The page cache
     * is otherwise Neo4j's own: createPageCache repeats GlobalModule's (5.26), so it is built by
     * ConfiguringPageCacheFactory from the same configuration (size, preallocation, IO buffers), file
     * system, scheduler, tracer, clock and memory pools, and the DBMS's life cycle closes it at
     * shutdown as before. A page cache handed in as an external dependency would have to be built
     * before Neo4j creates those, and so with other instances of them.
     */
    private static final class CommunityBuilder extends DatabaseManagementServiceBuilderImplementation {
        CommunityBuilder(Path home) {
            super(home);
        }

        @Override
        protected DatabaseManagementService newDatabaseManagementService(
                Config config, ExternalDependencies dependencies) {
            var factory = new DatabaseManagementServiceFactory(getDbmsInfo(config), getEditionFactory(config)) {
                @Override
                protected GlobalModule createGlobalModule(
                        Config globalConfig, boolean daemonMode, ExternalDependencies externalDependencies) {
                    return new GlobalModule(globalConfig, dbmsInfo, daemonMode, externalDependencies) {
                        @Override
                        protected PageCache createPageCache(FileSystemAbstraction fileSystem, Config pageCacheConfig,
                                LogService logging, Tracers tracers, JobScheduler jobScheduler,
                                SystemNanoClock clock, MemoryPools memoryPools) {
                            var pageCacheFactory = new ConfiguringPageCacheFactory(fileSystem, pageCacheConfig,
                                    tracers.getPageCacheTracer(), logging.getInternalLog(PageCache.class),
                                    jobScheduler, clock, memoryPools,
                                    MuninnPageCache.Configuration::disableEvictionThread);
                            PageCache pageCache = pageCacheFactory.getOrCreatePageCache();
                            if (pageCacheConfig.get(GraphDatabaseInternalSettings.dump_configuration)) {
                                pageCacheFactory.dumpConfiguration();
                            }
                            return pageCache;
                        }
                    };
                }
            };
            return factory.build(augmentConfig(config), daemonMode, dependencies);
        }
    }

    /** A second with less CPU than this (in ns, for all the JVM's threads) counts as quiet. */
    private static final long QUIET_CPU_NANOS = 20_000_000L;
    /** Heap growth since the last idle collection that makes the next quiet second collect. */
    private static final long GROWTH_BYTES = 16L * 1024 * 1024;

    /**
     * Gives back the heap a burst grew, once the JVM has gone quiet, and then does nothing while it
     * stays quiet. G1 returns memory only after a marking cycle (at its remark), which a quiet JVM
     * does not reach by itself. Its periodic collection (G1PeriodicGCInterval) does reach it, but
     * starts a cycle every interval whether or not anything was allocated: at one second it kept
     * 7-8% of a core busy on an idle service. This thread looks once a second at the CPU the JVM
     * used and at the heap it holds (committed) and uses, and asks for one concurrent cycle
     * (System.gc() with -XX:+ExplicitGCInvokesConcurrent) on a quiet second after either grew by
     * GROWTH_BYTES since the last one. The cycle unloads no classes
     * (-XX:-ClassUnloadingWithConcurrentMark), as the periodic one did not.
     */
    private static void startIdleCollector() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        var memory = ManagementFactory.getMemoryMXBean();
        Thread collector = new Thread(() -> {
            MemoryUsage after = memory.getHeapMemoryUsage();
            long lastCpu = os.getProcessCpuTime();
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long cpu = os.getProcessCpuTime();
                boolean quiet = cpu - lastCpu < QUIET_CPU_NANOS;
                lastCpu = cpu;
                MemoryUsage now = memory.getHeapMemoryUsage();
                boolean grew = now.getCommitted() - after.getCommitted() >= GROWTH_BYTES
                        || now.getUsed() - after.getUsed() >= GROWTH_BYTES;
                if (quiet && grew) {
                    System.gc();
                    after = memory.getHeapMemoryUsage();
                    lastCpu = os.getProcessCpuTime();
                } else if (now.getCommitted() < after.getCommitted() || now.getUsed() < after.getUsed()) {
                    // A collection of G1's own left less: growth counts from there.
                    after = new MemoryUsage(after.getInit(), Math.min(after.getUsed(), now.getUsed()),
                            Math.min(after.getCommitted(), now.getCommitted()), after.getMax());
                }
            }
        }, "skein-idle-collector");
        collector.setDaemon(true);
        collector.start();
    }

    /** How long an earlier launcher on the same store is waited for before this one gives up. */
    private static final Duration LOCK_WAIT = Duration.ofSeconds(60);
    /** The most a shutdown may take before the JVM halts (the store then recovers at the next start). */
    private static final Duration SHUTDOWN_LIMIT = Duration.ofSeconds(10);
    /** Held (and so reachable) for the JVM's life; the OS releases it however the process ends. */
    private static FileLock homeLock;

    /**
     * Takes launcher.lock in the store folder, waiting up to LOCK_WAIT while another launcher holds
     * it. A service killed with SIGKILL and started again at once finds its old JVM still closing the
     * store (it noticed its parent is gone and is shutting down): Neo4j would fail on its store_lock
     * or on the Bolt port. The lock is an OS lock (fcntl), not the file's presence, so a file left
     * by a killed JVM holds nothing. It names the holder's pid, for the message and for operators.
     */
    private static void lockHome(Path home) throws Exception {
        Path file = home.resolve("launcher.lock");
        FileChannel channel = FileChannel.open(file,
                StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        boolean told = false;
        FileLock lock;
        while ((lock = channel.tryLock()) == null) {
            String holder = Files.readString(file, StandardCharsets.US_ASCII).trim();
            if (!told) {
                // The service logs it: a start that waits says why.
                System.out.println("SKEIN_NEO4J_WAITING " + holder);
                System.out.flush();
                told = true;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("The Neo4j store in " + home + " is in use by another process (pid "
                        + holder + ") that has not stopped in " + LOCK_WAIT.toSeconds()
                        + " s: is another Skein service running with this SKEIN_DATA_DIR?");
                System.exit(3);
            }
            Thread.sleep(250);
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(
                (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
        homeLock = lock;
    }

    /**
     * Halts the JVM if it is still there after the limit: a shutdown that hangs (a checkpoint that
     * does not end) must not leave an orphan holding the store and the port. Neo4j recovers what a
     * cut checkpoint left from its transaction log.
     */
    private static void haltAfter(Duration limit) {
        Thread halter = new Thread(() -> {
            try {
                Thread.sleep(limit.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("Neo4j did not shut down in " + limit.toSeconds() + " s: halting");
            Runtime.getRuntime().halt(1);
        }, "skein-neo4j-halter");
        halter.setDaemon(true);
        halter.start();
    }

    /**
     * The parent closing our stdin means it is gone: stop rather than linger as an orphan. The
     * service is the only holder of the pipe's other end (Node opens it close-on-exec, so no other
     * child inherits it), and the kernel closes it however the service ends, SIGKILL included.
     */
    private static void watchParent() {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // ignore input
                }
            } catch (Exception ignored) {
                // treated as closed
            }
            System.exit(0);
        }, "skein-neo4j-stdin-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * Sets the `neo4j` user's password through the system database (Community supports ALTER USER).
     * On a restart the stored password is usually the same one, which Neo4j refuses to "change".
     */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        try {
            dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                    "ALTER USER neo4j SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED",
                    java.util.Map.of("password", password));
        } catch (RuntimeException e) {
            if (!String.valueOf(e.getMessage()).contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    private static String required(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            System.err.println("missing environment variable " + name);
            System.exit(2);
        }
        return value;
    }
}
