import CLIOptions
import ChatClientKit
import ChatProtocol
import Glibc
import QuicIO

/// `chat-bot logins`: registers accounts, then measures bursts of hellos per login path (guest,
/// certificate, password): the time until the last `welcome` and, with `--server-pid`, the
/// server's CPU time per connection (docs/PERFORMANCE.md, "Accounts"). Runs on one event loop.
final class LoginBench {
    enum Path: String, CaseIterable {
        case guest, certificate, password
    }

    struct Burst {
        let path: Path
        let wallMilliseconds: Double
        let cpuMilliseconds: Double?
        let loggedIn: Int
    }

    private let options: LoginBenchOptions
    private let loop: EventLoop
    private let pool: ChatSessionPool
    private let directory: String
    private var identities: [String] = []
    private var sessions: [ChatSession] = []
    private var done: (() -> Bool)?

    init(options: LoginBenchOptions) throws {
        self.options = options
        loop = try EventLoop()
        pool = try options.connection.makePool(on: loop)
        var template = Array("/tmp/qchat-logins-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw UsageError("cannot make a temporary folder for the identities") }
        directory = String(cString: made)
    }

    deinit {
        for path in identities { unlink(path) }
        rmdir(directory)
    }

    func run() throws -> Int32 {
        for index in 0..<options.clients where options.paths.contains(.certificate) {
            let path = directory + "/identity-\(index).pem"
            guard FileInput.write(try TLSIdentity.makeSelfSigned(commonName: "bench"), to: path, mode: 0o600) else {
                throw UsageError("cannot write \(path)")
            }
            identities.append(path)
        }
        if !options.existing {
            let registered = try register()
            Console.error("chat-bot: registered \(registered) of \(options.clients) accounts")
            guard registered == options.clients else { return 1 }
        }
        var bursts: [Burst] = []
        for _ in 0..<options.rounds {
            for path in options.paths {
                let burst = try measure(path)
                bursts.append(burst)
                Console.error("chat-bot: \(path.rawValue): \(burst.loggedIn) welcomed in \(Int(burst.wallMilliseconds)) ms"
                              + (burst.cpuMilliseconds.map { ", server CPU \(Int($0)) ms" } ?? ""))
            }
        }
        report(bursts)
        return bursts.allSatisfy { $0.loggedIn == options.clients } ? 0 : 1
    }

    private func nick(_ index: Int) -> String { "\(options.prefix)\(index)" }

    // MARK: Phases

    /// Every account with its password and its own certificate bound.
    private func register() throws -> Int {
        var registered = 0
        for index in 0..<options.clients {
            let session = try connect(nick: nick(index), identity: identities.isEmpty ? nil : identities[index], password: nil)
            session.onMessage = { [unowned self, unowned session] message, _ in
                switch message.type {
                case "welcome": session.send(.register(password: options.password))
                case "account": registered += 1
                case "error" where message.code == ErrorCode.rateLimited.rawValue:
                    // The server's password queue was full: ask again shortly, as clients do.
                    loop.schedule(at: .now() + .milliseconds(200)) { session.send(.register(password: self.options.password)) }
                default: break
                }
            }
        }
        wait(seconds: 120) { registered == self.options.clients }
        try closeAll()
        return registered
    }

    /// One burst: every client at once, guests or logging in by one path.
    private func measure(_ path: Path) throws -> Burst {
        let cpuBefore = serverCPUMilliseconds()
        let start = MonotonicTime.now()
        var welcomed = 0
        var loggedIn = 0
        for index in 0..<options.clients {
            let session = try connect(nick: path == .guest ? "g\(nick(index))" : nick(index),
                                      identity: path == .certificate ? identities[index] : nil,
                                      password: path == .password ? options.password : nil)
            session.onMessage = { [unowned self, unowned session] message, _ in
                switch message.type {
                case "welcome":
                    welcomed += 1
                    if message.account != nil || path == .guest { loggedIn += 1 }
                case "error" where message.code == ErrorCode.rateLimited.rawValue && session.assignedNick == nil:
                    loop.schedule(at: .now() + .milliseconds(100)) {
                        session.send(.join(nick: session.nick, peer: session.peer, room: session.room, password: self.options.password))
                    }
                default: break
                }
            }
        }
        wait(seconds: 120) { welcomed == self.options.clients }
        let wall = Double((MonotonicTime.now() - start).nanoseconds) / 1e6
        let cpuAfter = serverCPUMilliseconds()
        try closeAll()
        let cpu = cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }
        return Burst(path: path, wallMilliseconds: wall, cpuMilliseconds: cpu, loggedIn: loggedIn)
    }

    private func connect(nick: String, identity: String?, password: String?) throws -> ChatSession {
        var configuration = pool.configuration
        configuration.tls.certificateChainPath = identity
        configuration.tls.privateKeyPath = identity
        let session = try pool.connect(nick: nick, configuration: configuration)
        session.helloPassword = password
        sessions.append(session)
        return session
    }

    private func closeAll() throws {
        for session in sessions where session.isOpen { session.quit() }
        wait(seconds: 10) { self.sessions.allSatisfy { !$0.isOpen } }
        sessions = []
        // Let the server finish the departures before the next burst is measured.
        wait(seconds: 0.5) { false }
    }

    private func wait(seconds: Double, until condition: @escaping () -> Bool) {
        done = condition
        let deadline = MonotonicTime.now() + .milliseconds(UInt64(seconds * 1000))
        check(deadline: deadline)
        loop.run()
        done = nil
    }

    private func check(deadline: MonotonicTime) {
        if done?() == true || MonotonicTime.now() >= deadline {
            loop.stop()
            return
        }
        loop.schedule(at: .now() + .milliseconds(2)) { [unowned self] in check(deadline: deadline) }
    }

    // MARK: Measuring

    /// The server's user and system CPU time, all threads, from /proc/PID/stat.
    private func serverCPUMilliseconds() -> Double? {
        guard let pid = options.serverPID, let stat = FileInput.read("/proc/\(pid)/stat"),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func report(_ bursts: [Burst]) {
        Console.line("path         connections  last welcome (ms, median)  server CPU per connection (ms, median)  extra over guest")
        let guestCPU = median(bursts.filter { $0.path == .guest }.compactMap(\.cpuMilliseconds))
        for path in options.paths {
            let runs = bursts.filter { $0.path == path }
            let wall = median(runs.map(\.wallMilliseconds)) ?? 0
            let cpu = median(runs.compactMap(\.cpuMilliseconds)).map { $0 / Double(options.clients) }
            let extra = cpu.flatMap { value in guestCPU.map { value - $0 / Double(options.clients) } }
            Console.line(Self.padded(path.rawValue, 13) + Self.padded("\(options.clients)", 13) + Self.padded("\(Int(wall.rounded()))", 27)
                         + Self.padded(cpu.map(Self.twoDecimals) ?? "n/a", 39) + (extra.map(Self.twoDecimals) ?? "n/a"))
        }
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    private func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
