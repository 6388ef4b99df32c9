import Foundation

/// A local network of two hosts made of network namespaces, for DNS-SD tests: a veth pair with a
/// private address at each end (and nothing else), and on each host its own D-Bus system bus and
/// avahi-daemon, allowed on the veth only. mDNS never goes out of the machine's real interfaces
/// (docs: /work/shared/notes/mdns-in-network-namespaces.md, the recipe this follows).
public final class LocalNetworkLab: @unchecked Sendable {
    // @unchecked: used from the test's thread only.

    /// One end of the network: a namespace with an address, a bus and an avahi-daemon.
    public final class Host: @unchecked Sendable {
        public let namespace: String
        public let interface: String
        public let address: String
        public let directory: URL
        public var busAddress: String { "unix:path=\(directory.path)/bus" }
        fileprivate var bus: Supervised?
        fileprivate var daemon: Supervised?

        fileprivate init(namespace: String, interface: String, address: String, directory: URL) {
            self.namespace = namespace
            self.interface = interface
            self.address = address
            self.directory = directory
        }
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Why namespaces cannot be made here (not root, a tool missing); nil when they can.
    public static let unavailableReason: String? = {
        guard getuid() == 0 else { return "network namespaces need root (CI runs the suite as root)" }
        for tool in [ip, "/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing: make deps installs it"
        }
        let probe = "qchat-probe-\(getpid())"
        guard (try? run(ip, ["netns", "add", probe]).status) == 0 else { return "ip netns add fails here (no namespace support)" }
        _ = try? run(ip, ["netns", "del", probe])
        return nil
    }()

    static let ip = "/usr/sbin/ip"
    nonisolated(unsafe) private static var made = 0
    private static let lock = NSLock()

    public let server: Host
    public let client: Host

    /// Both hosts up, their daemons running ("Server startup complete"); throws when anything
    /// cannot be made (and undoes what was).
    public init() throws {
        if let reason = Self.unavailableReason { throw Unavailable(description: reason) }
        Self.lock.lock()
        Self.made += 1
        let tag = "\(getpid() % 100_000)\(Self.made)"
        Self.lock.unlock()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-lab-\(tag)-\(UUID().uuidString.prefix(8))")
        server = Host(namespace: "qchat-s-\(tag)", interface: "qs\(tag)", address: "10.203.0.1",
                      directory: root.appendingPathComponent("server"))
        client = Host(namespace: "qchat-c-\(tag)", interface: "qc\(tag)", address: "10.203.0.2",
                      directory: root.appendingPathComponent("client"))
        do {
            try makeNetwork()
            for host in [server, client] {
                try FileManager.default.createDirectory(at: host.directory, withIntermediateDirectories: true)
                try startBus(on: host)
                try startDaemon(on: host)
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// `executable` run inside the host's namespace, with its bus as the system bus.
    public func start(on host: Host, _ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(Self.ip, ["netns", "exec", host.namespace] + [executable] + arguments,
                         environment: environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": host.busAddress]) { $1 })
    }

    /// The arguments that run `executable` inside the host's namespace (for harnesses that take
    /// an executable and arguments, like ``ChatServerProcess``), its bus named by `env`.
    public func command(on host: Host, _ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        (Self.ip, ["netns", "exec", host.namespace, "/usr/bin/env", "DBUS_SYSTEM_BUS_ADDRESS=\(host.busAddress)", executable] + arguments)
    }

    /// The same as one shell command line (for tmux), `environment` set too.
    public func shellCommand(on host: Host, _ executable: String, _ arguments: [String], environment: [String: String] = [:]) -> String {
        let command = self.command(on: host, executable, arguments)
        let words = [command.executable] + command.arguments.prefix(4) + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + command.arguments.dropFirst(4)
        return words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    /// Stops the host's avahi-daemon (waiting for it to exit) and starts it again.
    /// With `services`, the daemon also publishes these static services (each the XML of one
    /// avahi `.service` file, a `<service-group>`, in its own /etc/avahi/services).
    public func restartDaemon(on host: Host, services: [String] = []) throws {
        stopDaemon(on: host)
        try startDaemon(on: host, services: services)
    }

    /// What the host's avahi-daemon logged, for a failing test to show.
    public func daemonLog(of host: Host) -> [String] { host.daemon?.shell.outputLines ?? [] }

    /// Stops the host's avahi-daemon and waits for it to exit.
    public func stopDaemon(on host: Host) {
        host.daemon?.stop(signal: SIGTERM)
        host.daemon = nil
    }

    /// Daemons and buses stopped (waited for), namespaces and files removed; safe to repeat.
    public func close() {
        for host in [server, client] {
            stopDaemon(on: host)
            host.bus?.stop(signal: SIGKILL)
            host.bus = nil
        }
        for host in [server, client] { _ = try? Self.run(Self.ip, ["netns", "del", host.namespace]) }
        try? FileManager.default.removeItem(at: server.directory.deletingLastPathComponent())
    }

    // MARK: Making it

    private func makeNetwork() throws {
        try Self.check(["netns", "add", server.namespace])
        try Self.check(["netns", "add", client.namespace])
        try Self.check(["link", "add", server.interface, "netns", server.namespace, "type", "veth",
                        "peer", "name", client.interface, "netns", client.namespace])
        for host in [server, client] {
            try Self.check(["-n", host.namespace, "addr", "add", host.address + "/24", "dev", host.interface])
            try Self.check(["-n", host.namespace, "link", "set", "lo", "up"])
            try Self.check(["-n", host.namespace, "link", "set", host.interface, "up"])
        }
    }

    /// A private system bus (without a policy avahi cannot own its name and exits).
    private func startBus(on host: Host) throws {
        let configuration = host.directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(host.directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """.write(to: configuration, atomically: true, encoding: .utf8)
        // In the foreground, a child of ours: a forked daemon would keep our pipes open.
        let bus = try Supervised(["/bin/sh", "-c", "/usr/bin/dbus-daemon --config-file=\(configuration.path) --nofork"])
        host.bus = bus
        let socket = host.directory.appendingPathComponent("bus").path
        let deadline = Date().addingTimeInterval(TestTime.scaled(10))
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, bus.shell.isRunning else {
                throw Unavailable(description: "dbus-daemon made no socket at \(socket): \(bus.shell.errorOutput)")
            }
            usleep(10_000)
        }
    }

    /// avahi-daemon in the namespace, on a /run of its own (its pid file and socket are fixed
    /// under /run/avahi-daemon), in the foreground; waits for its startup to complete.
    private func startDaemon(on host: Host, services: [String] = []) throws {
        let configuration = host.directory.appendingPathComponent("avahi-daemon.conf")
        // Its own /etc/avahi/services (the mount namespace of `ip netns exec` is private).
        let serviceDirectory = host.directory.appendingPathComponent("services")
        try? FileManager.default.removeItem(at: serviceDirectory)
        try FileManager.default.createDirectory(at: serviceDirectory, withIntermediateDirectories: true)
        for (index, service) in services.enumerated() {
            try service.write(to: serviceDirectory.appendingPathComponent("lab-\(index).service"), atomically: true, encoding: .utf8)
        }
        try """
            [server]
            host-name=\(host.namespace)
            use-ipv4=yes
            use-ipv6=no
            allow-interfaces=\(host.interface)
            enable-dbus=yes
            [wide-area]
            enable-wide-area=no
            [publish]
            publish-hinfo=no
            publish-workstation=no
            """.write(to: configuration, atomically: true, encoding: .utf8)
        let daemon = try Supervised(Self.ip, ["netns", "exec", host.namespace, "/usr/bin/env", "DBUS_SYSTEM_BUS_ADDRESS=\(host.busAddress)",
            "/bin/sh", "-c", "mount -t tmpfs -o mode=0755 qchat-run /run || exit 1; mkdir -p /etc/avahi/services "
            + "&& mount --bind \(serviceDirectory.path) /etc/avahi/services || exit 1; /usr/sbin/avahi-daemon "
            + "--no-drop-root --no-chroot --no-rlimits --no-proc-title -f \(configuration.path) 2>&1"])
        host.daemon = daemon
        guard daemon.shell.waitForLine(timeout: 20, where: { $0.contains("Server startup complete") }) != nil else {
            throw Unavailable(description: "avahi-daemon did not start in \(host.namespace): \(daemon.shell.outputLines)")
        }
    }

    /// A daemon under a shell that waits for it. Foundation's Process takes a child that closes
    /// every inherited descriptor (as avahi-daemon does) for gone and then blocks waiting for it,
    /// which stops it from noticing any other child's exit; the shell keeps its descriptors. The
    /// daemon is signalled by its own pid (it may have inherited a mask blocking SIGTERM, which
    /// avahi-daemon resets and the shell would not).
    final class Supervised: @unchecked Sendable {
        let shell: ChildProcess
        private let pid: Int32

        convenience init(_ command: [String]) throws {
            try self.init(command[0], Array(command.dropFirst()))
        }

        /// The last argument is the shell command line that starts the daemon.
        init(_ executable: String, _ arguments: [String]) throws {
            var arguments = arguments
            let line = arguments.removeLast()
            shell = try ChildProcess(executable, arguments + ["\(line) & echo \"daemon-pid $!\"; wait $!"], standardInput: "/dev/null")
            guard let announced = shell.waitForLine(timeout: 10, where: { $0.hasPrefix("daemon-pid ") }),
                  let pid = Int32(announced.dropFirst("daemon-pid ".count)) else {
                shell.terminate()
                throw Unavailable(description: "\(line) did not start: \(shell.errorOutput)")
            }
            self.pid = pid
        }

        /// Signals the daemon and waits for it to end (SIGKILL after 10 s), then ends its shell,
        /// which may never notice by itself (a mask inherited from the test's thread can block
        /// the SIGCHLD its `wait` needs).
        func stop(signal: Int32) {
            kill(pid, signal)
            let deadline = Date().addingTimeInterval(TestTime.scaled(10))
            while isAlive && Date() < deadline { usleep(10_000) }
            if isAlive { kill(pid, SIGKILL) }
            shell.signal(SIGKILL)
            _ = shell.finish(timeout: 5)
        }

        /// Running: neither gone nor a zombie.
        private var isAlive: Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return !stat[close...].hasPrefix(") Z")
        }
    }

    private static func check(_ arguments: [String]) throws {
        let result = try run(ip, arguments)
        guard result.status == 0 else { throw Unavailable(description: "ip \(arguments.joined(separator: " ")): \(result.errors)") }
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try ChildProcess(executable, arguments, standardInput: "/dev/null").finish(timeout: 20)
    }
}
