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
        makeSecondServerCertificate(in: folder)
        return folder
    }()

    /// A second server identity signed by the same CA (another key, the same names), for tests of
    /// what one server must not accept from another, such as its session tickets.
    private static func makeSecondServerCertificate(in folder: String) {
        let template = folder + "/server2.tmpl"
        try! "cn = \"localhost\"\ndns_name = \"localhost\"\nip_address = \"127.0.0.1\"\ntls_www_server\nsigning_key\nexpiration_days = 30\n"
            .write(toFile: template, atomically: true, encoding: .utf8)
        for arguments in [["--generate-privkey", "--key-type=ecdsa", "--curve=secp256r1", "--outfile", folder + "/server2.key"],
                          ["--generate-certificate", "--load-privkey", folder + "/server2.key", "--load-ca-certificate", folder + "/ca.pem",
                           "--load-ca-privkey", folder + "/ca.key", "--template", template, "--outfile", folder + "/server2.pem"]] {
            let certtool = Process()
            certtool.executableURL = URL(fileURLWithPath: "/usr/bin/certtool")
            certtool.arguments = arguments
            certtool.standardOutput = FileHandle.nullDevice
            certtool.standardError = FileHandle.nullDevice
            try! certtool.run()
            certtool.waitUntilExit()
            precondition(certtool.terminationStatus == 0, "certtool \(arguments[0]) failed")
        }
    }

    public static var ca: String { directory + "/ca.pem" }
    public static var otherCA: String { directory + "/other-ca.pem" }
    public static var serverCertificate: String { directory + "/server.pem" }
    public static var serverKey: String { directory + "/server.key" }
    public static var secondServerCertificate: String { directory + "/server2.pem" }
    public static var secondServerKey: String { directory + "/server2.key" }
    public static var clientCertificate: String { directory + "/client.pem" }
    public static var clientKey: String { directory + "/client.key" }
}
