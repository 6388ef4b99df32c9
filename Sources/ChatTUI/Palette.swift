/// The few fixed colours the UI uses besides nick colours.
enum Palette {
    static let dim: UInt8 = 8
    static let error: UInt8 = 1
}
