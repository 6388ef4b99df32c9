import EventRuntime
import Synchronization

/// A UDP impairment proxy: bind it, then `run()` it on a thread of its own (the executable's main
/// thread, or a test's dedicated thread). Every other method may be called from any thread.
public final class ImpairmentProxy: Sendable {
    public let configuration: ProxyConfiguration
    /// The bound listen address, with the real port when the configuration asked for port 0.
    public let listenAddress: SocketAddress
    let control: ProxyControl
    private let listener: UDPSocket
    private let started = Atomic<Bool>(false)

    /// Binds the listen socket, so clients may send as soon as this returns; packets wait in the
    /// kernel until `run()` starts.
    public init(configuration: ProxyConfiguration) throws {
        self.configuration = configuration
        listener = try UDPSocket(
            bindingTo: configuration.listenAddress, bufferBytes: ProxyLoop.listenerBufferBytes, overridingSystemLimit: true)
        do {
            control = try ProxyControl()
        } catch {
            listener.close()
            throw error
        }
        listenAddress = listener.localAddress
    }

    deinit {
        // Once run, the loop owns and closes the listener.
        if !started.load(ordering: .acquiring) { listener.close() }
    }

    /// Relays until `stop()`, the `quit` command, SIGINT/SIGTERM (with `stopsOnTerminationSignals`:
    /// the executable, whose only thread this is, since the loop blocks them for its signalfd), or
    /// end of `commandInput` with `exitWhenInputCloses`. Answers to commands read from
    /// `commandInput` go to `output`; diagnostics (rebinds, errors) go to `log`. Returns the
    /// final statistics. Call once.
    public func run(
        commandInput: Int32? = nil, stopsOnTerminationSignals: Bool = false, output: @escaping (String) -> Void = { _ in },
        log: @escaping (String) -> Void = { _ in }
    ) -> ProxyStatistics {
        precondition(!started.exchange(true, ordering: .acquiringAndReleasing), "ImpairmentProxy.run() called twice")
        let loop = ProxyLoop(
            configuration: configuration, control: control, listener: listener, commandInput: commandInput,
            stopsOnTerminationSignals: stopsOnTerminationSignals, output: output, log: log)
        return loop.run()
    }

    /// Executes a command line as if typed on stdin and returns its answer; nil when the loop did
    /// not answer within `timeout` seconds (not running, or stopped).
    public func perform(_ commandLine: String, timeout: Double = 5) -> String? {
        let reply = ReplySlot<String>()
        guard control.submit(.command(commandLine, reply)) else { return nil }
        return reply.wait(timeout: timeout)
    }

    /// Blocks until the statistics satisfy `condition` and returns them, or nil after `timeout`
    /// seconds. The loop checks after every wake-up, so this observes counters without sleeping.
    public func waitForStatistics(
        timeout: Double, until condition: @escaping @Sendable (ProxyStatistics) -> Bool
    ) -> ProxyStatistics? {
        let reply = ReplySlot<ProxyStatistics?>()
        let deadline = MonotonicTime.now() + TimeSpan(nanoseconds: UInt64(max(0, timeout) * 1e9))
        guard control.submit(.statistics(condition: condition, deadline: deadline, reply: reply)) else { return nil }
        // The loop answers at the deadline itself; the extra second only guards against a loop
        // that died without answering.
        return reply.wait(timeout: timeout + 1) ?? nil
    }

    /// The current statistics.
    public func statistics(timeout: Double = 5) -> ProxyStatistics? {
        waitForStatistics(timeout: timeout) { _ in true }
    }

    /// Makes `run()` return soon after; safe from any thread, before or during `run()`.
    public func stop() {
        control.requestStop()
    }
}
