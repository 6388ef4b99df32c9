import Foundation

/// Certificates made once per test run by scripts/make-certs.sh in a temporary folder.
enum TestCertificates {
    static let directory: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-engine-tests-\(getpid())").path
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/make-certs.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, folder, "alice"]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "make-certs.sh failed")
        return folder
    }()

    static var ca: String { directory + "/ca.pem" }
    static var otherCA: String { directory + "/other-ca.pem" }
    static var serverCertificate: String { directory + "/server.pem" }
    static var serverKey: String { directory + "/server.key" }
    static var clientCertificate: String { directory + "/client.pem" }
    static var clientKey: String { directory + "/client.key" }
}
