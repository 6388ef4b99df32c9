import Dispatch
import EventRuntime
import Foundation
import Impairment
import RuntimeCore

/// An `ImpairmentProxy` in the test process, running on a dedicated thread, configured with
/// `udp-impair`'s own flags (plus `--server` pointing at the echo server and a fixed seed).
final class RunningProxy: Sendable {
    /// Where the proxy thread leaves `run()`'s result.
    private final class Completion: Sendable {
        let statistics = LockedValue<ProxyStatistics?>(nil)
        let finished = DispatchSemaphore(value: 0)
    }

    let proxy: ImpairmentProxy
    private let completion = Completion()

    init(server: SocketAddress, _ flags: [String] = []) throws {
        let configuration = try ProxyConfiguration(arguments: ["--server", "\(server)", "--seed", "1"] + flags)
        proxy = try ImpairmentProxy(configuration: configuration)
        Thread { [proxy, completion] in
            let statistics = proxy.run()
            completion.statistics.withLock { $0 = statistics }
            completion.finished.signal()
        }.start()
    }

    deinit {
        proxy.stop()
        _ = completion.finished.wait(timeout: .now() + 5)
    }

    var address: SocketAddress { proxy.listenAddress }

    /// Runs a stdin command and returns its answer line.
    func perform(_ command: String) -> String {
        proxy.perform(command) ?? "<no answer>"
    }

    /// Statistics once `condition` holds (nil after `timeout` seconds).
    func statistics(
        within timeout: Double = 5, until condition: @escaping @Sendable (ProxyStatistics) -> Bool = { _ in true }
    ) -> ProxyStatistics? {
        proxy.waitForStatistics(timeout: timeout, until: condition)
    }

    /// Stops the loop and returns what `run()` returned.
    func stop() -> ProxyStatistics? {
        proxy.stop()
        guard completion.finished.wait(timeout: .now() + 5) == .success else { return nil }
        completion.finished.signal()  // for deinit's wait
        return completion.statistics.withLock { $0 }
    }
}
