import Foundation
import TestSupport
import Testing

/// `chat-server --self-signed`: the key and certificate are made once in the state directory,
/// private to the server's user, and kept; `--print-fingerprint` prints what clients will see.
@Suite("self-signed certificate", .serialized)
struct SelfSignedCertificateTests {
    static func stateDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("qchat-state-\(UUID().uuidString.prefix(8))/nested").path
    }

    static func printFingerprint(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try ChildProcess(BuildPaths.product("chat-server"), ["--print-fingerprint"] + arguments).finish(timeout: 20)
    }

    /// Made on first start with mode 0600 (its folder 0700), logged as made; the next start and
    /// --print-fingerprint reuse the very file (same bytes, same fingerprint, not rewritten).
    @Test func madeOnceWithMode0600AndReused() throws {
        let state = Self.stateDirectory()
        let file = state + "/self-signed.pem"
        let first = try ChatServerProcess(exactly: ["--port", "0", "--host", "127.0.0.1", "--self-signed", "--state-dir", state])
        let made = try #require(first.process.waitForLine(timeout: 10) { $0.contains("self-signed certificate") })
        first.stop()
        #expect(made.contains("self-signed certificate made"), "\(made)")
        let fingerprint = try #require(made.split(separator: " ").first { $0.hasPrefix("fp=sha256:") }).dropFirst("fp=".count)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? Int == 0o700)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: bytes, as: UTF8.self).contains("PRIVATE KEY-----"))

        let second = try ChatServerProcess(exactly: ["--port", "0", "--host", "127.0.0.1", "--self-signed", "--state-dir", state])
        let kept = try #require(second.process.waitForLine(timeout: 10) { $0.contains("self-signed certificate") })
        second.stop()
        #expect(!kept.contains("made"), "\(kept)")
        #expect(kept.contains("fp=\(fingerprint)"))
        let printed = try Self.printFingerprint(["--self-signed", "--state-dir", state])
        #expect(printed.status == 0)
        #expect(printed.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(fingerprint))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date == attributes[.modificationDate] as? Date)
    }

    /// A self-signed file others can read is refused, not used (its key would be public).
    @Test func aFileOthersCanReadIsRefused() throws {
        let state = Self.stateDirectory()
        #expect(try Self.printFingerprint(["--self-signed", "--state-dir", state]).status == 0)
        chmod(state + "/self-signed.pem", 0o644)
        let run = try Self.printFingerprint(["--self-signed", "--state-dir", state])
        #expect(run.status != 0)
        #expect(run.errors.contains("self-signed"), "\(run.errors)")
    }

    /// --print-fingerprint of a --cert file is the SHA-256 of its first certificate, as clients
    /// compute it; --self-signed with --cert is a usage error.
    @Test func printsTheFingerprintOfAGivenCertificate() throws {
        let printed = try Self.printFingerprint(["--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey])
        #expect(printed.status == 0)
        let line = printed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("sha256:") && line.count == 71, "\(line)")
        let clash = try Self.printFingerprint(["--self-signed", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey])
        #expect(clash.status == 2)
        #expect(clash.errors.contains("without --cert and --key"))
    }

    /// --advertise takes one DNS label: 63 bytes of UTF-8 at most, on one line.
    @Test func advertisedNamesAreOneLabel() throws {
        let state = Self.stateDirectory()
        let run = try ChildProcess(BuildPaths.product("chat-server"), ["--self-signed", "--state-dir", state, "--advertise",
                                                                         String(repeating: "é", count: 32)]).finish(timeout: 10)
        #expect(run.status == 2)
        #expect(run.errors.contains("at most 63 bytes"), "\(run.errors)")
    }
}
