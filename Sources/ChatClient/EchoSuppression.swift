import Glibc

/// Line mode reading a password from a terminal: echo off for that one line, back on after (and
/// on every exit, by the caller's `defer`). A pipe or a file has no echo to turn off.
struct EchoSuppression {
    private var saved: termios?

    /// Turns echo off when standard input is a terminal.
    static func begin() -> EchoSuppression {
        var attributes = termios()
        guard isatty(0) == 1, tcgetattr(0, &attributes) == 0 else { return EchoSuppression(saved: nil) }
        var silent = attributes
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &silent)
        return EchoSuppression(saved: attributes)
    }

    var isTerminal: Bool { saved != nil }

    func end() {
        guard var attributes = saved else { return }
        tcsetattr(0, TCSANOW, &attributes)
    }
}
