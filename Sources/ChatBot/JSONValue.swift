import ChatProtocol

/// Just enough JSON for the load report, written with two-space indentation.
enum JSONValue {
    case integer(Int)
    case number(Double)
    case string(String)
    case bool(Bool)
    case object([(String, JSONValue)])

    func rendered(indent: String = "") -> String {
        switch self {
        case .integer(let value): return String(value)
        case .number(let value): return value.isFinite ? String(value) : "null"
        case .bool(let value): return value ? "true" : "false"
        case .string(let value): return JSONString.quoted(value)
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            let inner = indent + "  "
            let lines = members.map { "\(inner)\(JSONString.quoted($0.0)): \($0.1.rendered(indent: inner))" }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        }
    }
}
