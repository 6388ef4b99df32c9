import Foundation

/// A program running in a detached tmux session: keys go in with send-keys, the screen comes out
/// with capture-pane, exactly as a person would see it.
public final class TmuxSession: @unchecked Sendable {
    // @unchecked: immutable after init; every method shells out to tmux, which serialises itself.
    public let name: String
    private let socket: String

    public init(command: String, columns: Int = 100, rows: Int = 30) throws {
        name = "qchat-\(UUID().uuidString.prefix(8))"
        socket = "qchat-tests-\(getpid())"
        try TmuxSession.tmux(socket, ["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", command], capture: false)
    }

    /// Types text (literally) into the pane.
    public func type(_ text: String) throws { try TmuxSession.tmux(socket, ["send-keys", "-t", name, "-l", text]) }

    /// Presses named keys (Enter, C-c, PageUp, M-2, ...).
    public func press(_ keys: String...) throws { try TmuxSession.tmux(socket, ["send-keys", "-t", name] + keys) }

    /// Pastes text as a terminal does: with `bracketed`, wrapped in the bracketed-paste markers
    /// (when the program asked for them), otherwise as typed keys, each line feed an Enter.
    public func paste(_ text: String, bracketed: Bool) throws {
        let buffer = "qchat-\(UUID().uuidString.prefix(8))"
        try TmuxSession.tmux(socket, ["set-buffer", "-b", buffer, "--", text])
        try TmuxSession.tmux(socket, ["paste-buffer", "-d", "-b", buffer, "-t", name] + (bracketed ? ["-p"] : []))
    }

    /// True once the program rang the terminal bell (tmux's `window_bell_flag`).
    public func bellRang() -> Bool {
        let text = (try? TmuxSession.tmux(socket, ["display-message", "-p", "-t", name, "#{window_bell_flag}"])) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    public func screen() -> [String] {
        let output = (try? TmuxSession.tmux(socket, ["capture-pane", "-p", "-t", name])) ?? ""
        return output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The screen with its colours and attributes as SGR escape sequences (`capture-pane -e`).
    public func styledScreen() -> String {
        (try? TmuxSession.tmux(socket, ["capture-pane", "-e", "-p", "-t", name])) ?? ""
    }

    public func title() -> String {
        ((try? TmuxSession.tmux(socket, ["display-message", "-p", "-t", name, "#{pane_title}"])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// tmux's own view of the pane's modes: alternate screen on, mouse reporting on.
    public func modes() -> (alternateScreen: Bool, mouse: Bool) {
        let text = (try? TmuxSession.tmux(socket, ["display-message", "-p", "-t", name, "#{alternate_on} #{mouse_any_flag}"])) ?? ""
        let parts = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return (parts.first == "1", parts.count > 1 && parts[1] == "1")
    }

    /// Everything a hostile byte stream could flip, as tmux sees the pane: screen modes, mouse
    /// reporting, keypad modes, wrapping, origin mode, cursor visibility, the scroll region and
    /// the title. Two equal snapshots mean the terminal state is the same.
    public func terminalState() -> String {
        let flags = ["alternate_on", "cursor_flag", "insert_flag", "keypad_cursor_flag", "keypad_flag", "mouse_all_flag",
                     "mouse_any_flag", "mouse_button_flag", "mouse_sgr_flag", "mouse_standard_flag", "mouse_utf8_flag",
                     "origin_flag", "wrap_flag", "scroll_region_upper", "scroll_region_lower", "pane_title"]
        let format = flags.map { "\($0)=#{\($0)}" }.joined(separator: " ")
        return ((try? TmuxSession.tmux(socket, ["display-message", "-p", "-t", name, format])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The cursor's column and row in the pane.
    public func cursor() -> (column: Int, row: Int) {
        let text = (try? TmuxSession.tmux(socket, ["display-message", "-p", "-t", name, "#{cursor_x} #{cursor_y}"])) ?? ""
        let parts = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return parts.count == 2 ? (parts[0], parts[1]) : (-1, -1)
    }

    public func resize(columns: Int, rows: Int) throws {
        try TmuxSession.tmux(socket, ["resize-window", "-t", name, "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// Polls the screen until `condition` holds (the client redraws on events, not on a clock
    /// the test could know), for at most `timeout` seconds (scaled by `TestTime`).
    @discardableResult
    public func waitFor(timeout: TimeInterval = 10, _ condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        while Date() < deadline {
            if condition(screen()) { return true }
            usleep(50_000)
        }
        return condition(screen())
    }

    public func kill() { _ = try? TmuxSession.tmux(socket, ["kill-session", "-t", name], capture: false) }

    deinit { kill() }

    /// Runs one tmux command with posix_spawn and waitpid. Foundation's Process is not used: it
    /// failed to notice the exit of a tmux client whose forked server lives on. `capture: false`
    /// for the command that may start the server, which would otherwise inherit the output pipe.
    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String], capture: Bool = true) throws -> String {
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        var pipeEnds: [Int32] = [-1, -1]
        if capture { guard pipe(&pipeEnds) == 0 else { throw TmuxError.spawn(errno) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Every pane's program has the test process's home, never the real one.
        var environment = ProcessInfo.processInfo.environment.merging(IsolatedHome.environment) { $1 }
        environment["TERM"] = "xterm-256color"
        environment.removeValue(forKey: "TMUX")
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let cargv = argv.map { strdup($0) } + [nil]
        defer {
            envp.forEach { free($0) }
            cargv.forEach { free($0) }
        }
        // tmux (whose server runs every pane's program) starts with no signal blocked and the
        // job-control signals at their defaults, as from a login shell: the test's thread may
        // block or ignore some, and a shell in a pane would inherit that (no Ctrl-Z, no SIGCHLD).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU, SIGHUP, SIGWINCH] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, argv[0], &actions, &attributes, cargv, envp)
        if capture { close(pipeEnds[1]) }
        guard result == 0 else {
            if capture { close(pipeEnds[0]) }
            throw TmuxError.spawn(result)
        }
        var output: [UInt8] = []
        if capture {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(pipeEnds[0], &buffer, buffer.count)
                if count > 0 { output += buffer[..<count] } else if count < 0 && errno == EINTR { continue } else { break }
            }
            close(pipeEnds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    enum TmuxError: Error { case spawn(Int32) }
}
