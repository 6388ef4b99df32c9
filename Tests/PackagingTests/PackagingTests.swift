import Foundation
import TestSupport
import Testing

/// `make install` and `make deb` on the binaries this test run built (PRODUCTS: no build
/// inside the test), checked by what a user and Debian's tools see: the files, the runtime
/// libraries found without the toolchain, the unit by systemd-analyze, the package by dpkg and
/// lintian.
@Suite("make install and make deb")
struct PackagingTests {
    private static let programs = ["chat-server", "chat-client", "chat-bot"]

    private static func temporaryFolder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs a program to its end; its status and everything it printed.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                            timeout: TimeInterval = 300) throws -> (status: Int32, output: String) {
        let finished = try ChildProcess(executable, arguments, environment: environment, standardInput: "/dev/null").finish(timeout: timeout)
        return (finished.status, finished.output + finished.errors)
    }

    private static func make(_ target: String, _ variables: [String]) throws -> (status: Int32, output: String) {
        try run("/usr/bin/make", ["-C", BuildPaths.repository.path, "--no-print-directory", target,
                                  "PRODUCTS=\(BuildPaths.products.path)"] + variables)
    }

    /// Every file below `root`, relative to it, sorted.
    private static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { found.append(path) }
        }
        return found.sorted()
    }

    /// `make install DESTDIR=...` lays out the binaries, their Swift runtime, the man pages, the example and installed configuration and the unit; the installed chat-server runs with no toolchain on its library path.
    @Test func installLaysOutTheExpectedFiles() throws {
        let root = try Self.temporaryFolder("install")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let made = try Self.make("install", ["DESTDIR=\(root)"])
        #expect(made.status == 0, "\(made.output)")
        let installed = Self.files(under: root)
        let expected = ["usr/local/bin/chat-bot", "usr/local/bin/chat-client", "usr/local/bin/chat-server",
                        "usr/local/etc/qchat/chat-server.conf", "usr/local/lib/systemd/system/chat-server.service",
                        "usr/local/share/doc/qchat/chat-server.conf.example", "usr/local/share/man/man1/chat-bot.1.gz",
                        "usr/local/share/man/man1/chat-client.1.gz", "usr/local/share/man/man8/chat-server.8.gz"]
        #expect(Set(expected).isSubset(of: installed), "missing: \(Set(expected).subtracting(installed).sorted())")
        let libraries = installed.filter { $0.hasPrefix("usr/local/lib/qchat/") }
        #expect(libraries.contains("usr/local/lib/qchat/libswiftCore.so"), "\(libraries)")
        #expect(Set(installed).subtracting(expected).subtracting(libraries).isEmpty, "unexpected: \(Set(installed).subtracting(expected).subtracting(libraries).sorted())")

        for program in Self.programs {
            let binary = "\(root)/usr/local/bin/\(program)"
            let dynamic = try Self.run("/usr/bin/readelf", ["-d", binary])
            #expect(dynamic.output.contains("Library runpath: [$ORIGIN/../lib/qchat]"), "\(program): \(dynamic.output)")
            // Every Swift library it loads comes from the installation, none from the toolchain.
            let loaded = try Self.run("/usr/bin/ldd", [binary])
            #expect(!loaded.output.contains("not found") && !loaded.output.contains("/opt/swift"), "\(program): \(loaded.output)")
            #expect(loaded.output.contains("\(root)/usr/local/bin/../lib/qchat/libswiftCore.so"), "\(program): \(loaded.output)")
            // Foundation would bring ICU's data, some 55 MB, into the package.
            #expect(!loaded.output.contains("libFoundation"), "\(program) loads Foundation: \(loaded.output)")
            let version = try Self.run(binary, ["--version"], environment: ["LD_LIBRARY_PATH": ""])
            #expect(version.status == 0 && version.output.hasPrefix("\(program) "), "\(version.output)")
        }
        let unit = try String(contentsOfFile: root + "/usr/local/lib/systemd/system/chat-server.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/chat-server --config /usr/local/etc/qchat/chat-server.conf"))
        for hardening in ["DynamicUser=yes", "StateDirectory=qchat", "ProtectSystem=strict", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n"] {
            #expect(unit.contains(hardening), "no \(hardening) in the unit")
        }
        #expect(!unit.contains("AmbientCapabilities"), "a capability for port 4433")
        let configuration = try String(contentsOfFile: root + "/usr/local/etc/qchat/chat-server.conf", encoding: .utf8)
        #expect(configuration.contains("\nport = 4433\n"))
        for page in ["man1/chat-client.1.gz", "man1/chat-bot.1.gz", "man8/chat-server.8.gz"] {
            // groff's warnings go to stderr; the page itself to /dev/null.
            let rendered = try Self.run("/bin/sh", ["-c", "MANWIDTH=80 man --warnings -l '\(root)/usr/local/share/man/\(page)' > /dev/null"])
            #expect(rendered.status == 0 && rendered.output.isEmpty, "\(page): \(rendered.output.prefix(500))")
        }
    }

    /// With PORT below 1024 the unit grants CAP_NET_BIND_SERVICE, and the configuration names the port; a second install keeps an edited configuration.
    @Test func lowPortGetsTheCapabilityAndEditsAreKept() throws {
        let root = try Self.temporaryFolder("install443")
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try Self.make("install", ["DESTDIR=\(root)", "PORT=443"]).status == 0)
        let unit = try String(contentsOfFile: root + "/usr/local/lib/systemd/system/chat-server.service", encoding: .utf8)
        #expect(unit.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\n"))
        let path = root + "/usr/local/etc/qchat/chat-server.conf"
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\nport = 443\n"))
        try "name = edited\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Self.make("install", ["DESTDIR=\(root)"]).status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "name = edited\n")
    }

    /// systemd-analyze verify accepts the unit as installed (a real PREFIX, so its ExecStart exists), with a capability or without; skipped where systemd is absent.
    @Test func systemdAcceptsTheUnit() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("skipped: systemd-analyze is not installed (systemd absent)")
            return
        }
        for port in ["4433", "443"] {
            let prefix = try Self.temporaryFolder("prefix")
            defer { try? FileManager.default.removeItem(atPath: prefix) }
            #expect(try Self.make("install", ["PREFIX=\(prefix)", "PORT=\(port)"]).status == 0)
            let verified = try Self.run("/usr/bin/systemd-analyze", ["verify", "--man=no", "\(prefix)/lib/systemd/system/chat-server.service"])
            #expect(verified.status == 0 && verified.output.isEmpty, "port \(port): \(verified.output)")
        }
    }

    /// `make deb` builds a package that dpkg installs into a throwaway root, whose chat-server --version runs, whose Depends name the Debian packages of every library the binaries load, and in which lintian finds no error.
    @Test func debInstallsAndPassesLintian() throws {
        let output = try Self.temporaryFolder("deb")
        let root = try Self.temporaryFolder("root")
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: root)
        }
        let made = try Self.make("deb", ["DEBDIR=\(output)"])
        #expect(made.status == 0, "\(made.output)")
        let package = try #require(try FileManager.default.contentsOfDirectory(atPath: output).first { $0.hasSuffix(".deb") })
        let deb = output + "/" + package

        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/log"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: nil))
        // The libraries it depends on are the host's, not in the empty root's database.
        let installed = try Self.run("/usr/bin/dpkg", ["--root=\(root)", "--force-depends", "--log=/dev/null", "-i", deb])
        #expect(installed.status == 0, "\(installed.output)")
        let version = try Self.run(root + "/usr/bin/chat-server", ["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("chat-server "), "\(version.output)")
        let status = try Self.run("/usr/bin/dpkg", ["--root=\(root)", "-s", "qchat"])
        #expect(status.output.contains("Status: install ok installed"), "\(status.output)")
        #expect(status.output.contains("Conffiles:\n /etc/qchat/chat-server.conf"), "\(status.output)")

        // Depends: the package of each library a binary needs directly, but the Swift runtime it ships.
        let fields = try Self.run("/usr/bin/dpkg-deb", ["--field", deb, "Depends"]).output
        var needed: Set<String> = []
        for program in Self.programs {
            let dynamic = try Self.run("/usr/bin/readelf", ["-d", root + "/usr/bin/" + program]).output
            for match in dynamic.matches(of: /Shared library: \[([^\]]+)\]/)
            where !FileManager.default.fileExists(atPath: root + "/usr/lib/qchat/" + match.1) {
                needed.insert(String(match.1))
            }
        }
        #expect(!needed.isEmpty)
        var resolved: [String: String] = [:]
        for program in Self.programs {
            for match in try Self.run("/usr/bin/ldd", [root + "/usr/bin/" + program]).output.matches(of: /\s(\S+) => (\S+)/) {
                resolved[String(match.1)] = String(match.2)
            }
        }
        for library in needed {
            // The dynamic loader is named by its absolute path in ldd's output.
            let path = try #require(library.hasPrefix("ld-linux") ? "/lib64/" + library : resolved[library], "\(library) not loaded: \(resolved)")
            // With merged /usr, dpkg knows a file under one of its two names.
            let owners = try [String(path), "/usr" + path, String(path.dropFirst(4))].lazy.map { try Self.run("/usr/bin/dpkg", ["-S", $0]) }
            let owner = owners.first { $0.status == 0 }?.output.split(separator: ":").first.map(String.init)
            #expect(owner.map { fields.contains($0) } == true, "\(library) comes from \(owner ?? "no package"), not in Depends: \(fields)")
        }
        #expect(fields.contains("ssl-cert"))

        let lint = try Self.run("/usr/bin/lintian", ["--fail-on", "error", deb])
        print("lintian \(package): \(lint.output.isEmpty ? "nothing" : lint.output)")
        #expect(lint.status == 0, "\(lint.output)")
        #expect(!lint.output.split(separator: "\n").contains { $0.hasPrefix("E:") }, "\(lint.output)")
    }
}
