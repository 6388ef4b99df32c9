/// The few fixed colours the UI uses besides nick colours.
enum Palette {
    static let dim: UInt8 = 8
    static let error: UInt8 = 1
    static let highlight: UInt8 = 3
    static let privateMessage: UInt8 = 5
    static let marker: UInt8 = 4
}
