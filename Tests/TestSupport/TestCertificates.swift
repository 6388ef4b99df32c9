import Foundation

/// Certificates made once per test run by scripts/make-certs.sh in a temporary folder.
public enum TestCertificates {
    public static let directory: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-engine-tests-\(getpid())").path
        let script = BuildPaths.repository.appendingPathComponent("scripts/make-certs.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, folder, "alice"]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "make-certs.sh failed")
        return folder
    }()

    public static var ca: String { directory + "/ca.pem" }
    public static var otherCA: String { directory + "/other-ca.pem" }
    public static var serverCertificate: String { directory + "/server.pem" }
    public static var serverKey: String { directory + "/server.key" }
    public static var clientCertificate: String { directory + "/client.pem" }
    public static var clientKey: String { directory + "/client.key" }
}
