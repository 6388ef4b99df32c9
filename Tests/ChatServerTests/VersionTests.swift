import Foundation
import TestSupport
import Testing

/// `--version` on every executable: one line on standard output, status 0, with the qchat
/// release and the ngtcp2 and GnuTLS versions the program runs with.
@Suite("--version")
struct VersionTests {
    /// Each program names itself, the release and, when it speaks QUIC, the libraries.
    @Test(arguments: ["chat-server", "chat-client", "chat-bot", "quic-echo", "udp-impair"])
    func versionLine(program: String) throws {
        let result = try ChildProcess(BuildPaths.product(program), ["--version"]).finish(timeout: 10)
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        let line = String(lines.first ?? "")
        if program == "udp-impair" {
            #expect(line.wholeMatch(of: /udp-impair \d+\.\d+\.\d+/) != nil, "\(line)")
        } else {
            #expect(line.wholeMatch(of: /[a-z-]+ \d+\.\d+\.\d+ \(protocol qchat\/1; ngtcp2 \d+\.\d+\.\d+, GnuTLS \d+\.\d+\.\d+\)/) != nil, "\(line)")
            #expect(line.hasPrefix(program + " "))
        }
    }

    /// The versions are those of the libraries loaded: the same as pkg-config reports for the installed ones.
    @Test func librariesAreTheInstalledOnes() throws {
        let line = try ChildProcess(BuildPaths.product("chat-server"), ["--version"]).finish(timeout: 10).output
        for (library, name) in [("libngtcp2", "ngtcp2"), ("gnutls", "GnuTLS")] {
            let installed = try ChildProcess("/usr/bin/pkg-config", ["--modversion", library]).finish(timeout: 10).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(line.contains("\(name) \(installed)"), "\(line) against \(library) \(installed)")
        }
    }
}
