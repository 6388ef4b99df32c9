/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case text(String)
    case null

    static func optionalText(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
    static func optionalInteger(_ integer: Int64?) -> SQLiteValue { integer.map(SQLiteValue.integer) ?? .null }
}
