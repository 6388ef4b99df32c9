/// How `chat-server` writes its log lines on stderr (`--log-format`).
enum LogFormat: String, Equatable {
    /// `TIME LEVEL event key=value ...`, values quoted when they need it.
    case text
    /// One JSON object a line: `{"time":...,"level":...,"event":...,"key":"value",...}`.
    case json
}
