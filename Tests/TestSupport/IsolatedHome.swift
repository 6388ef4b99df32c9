import Foundation

/// The home every program a test starts gets, unless the test gives its own (``ClientHome`` in
/// the client's tests): `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME` in a directory of this test
/// process, removed at its exit. A chat-client started without a home of its test's own writes
/// its identity, known_servers, private messages and downloads there, never into the real home
/// of the developer or the CI machine (a run once left `name:` lines in root's known_servers).
public enum IsolatedHome {
    public static let path: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-test-home-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: IsolatedHome.path) }
        return path
    }()

    public static var environment: [String: String] {
        ["HOME": path, "XDG_CONFIG_HOME": path + "/.config", "XDG_STATE_HOME": path + "/.local/state"]
    }
}
