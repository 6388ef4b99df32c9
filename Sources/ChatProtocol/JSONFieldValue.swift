/// The outcome of reading a known field: its value, an explicit `null` (treated as absent),
/// or a syntactically valid value of the wrong JSON type (which becomes `bad-field`).
enum JSONFieldValue<Value> {
    case value(Value)
    case null
    case wrongType
}

extension JSONFieldValue {
    /// The value to store (nil for `null` and for the wrong type) and whether the field is bad.
    @inline(__always)
    var resolved: (value: Value?, isBad: Bool) {
        switch self {
        case .value(let value): (value, false)
        case .null: (nil, false)
        case .wrongType: (nil, true)
        }
    }
}
