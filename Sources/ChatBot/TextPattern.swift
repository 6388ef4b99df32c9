/// What the text of an expected message must contain: anything, a substring (`"hello"`), or a
/// regular expression (`/h(i|ello) bob/`, Swift Regex syntax).
enum TextPattern: Equatable, Sendable, CustomStringConvertible {
    case anything
    case substring(String)
    case regex(String)

    func matches(_ text: String) -> Bool {
        switch self {
        case .anything: true
        case .substring(let part): text.contains(part)
        // The source was compiled once by the parser, so it compiles here too.
        case .regex(let source): (try? Regex(source)).map { text.contains($0) } ?? false
        }
    }

    var description: String {
        switch self {
        case .anything: "anything"
        case .substring(let part): "\"\(part)\""
        case .regex(let source): "/\(source)/"
        }
    }
}
