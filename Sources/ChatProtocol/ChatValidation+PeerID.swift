/// Peer ids: a UUID in its usual text form, any version, either case.
extension ChatValidation {
    /// True for `8-4-4-4-12` hexadecimal digits separated by `-`, as `UUID().uuidString`
    /// writes them (36 characters). Checked by hand to keep Foundation out of the module.
    public static func isValidPeerID(_ peer: String) -> Bool {
        let utf8 = peer.utf8
        guard utf8.count == 36 else { return false }
        for (offset, byte) in utf8.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                guard byte == ASCII.minus else { return false }
            default:
                guard ASCII.hexValue(byte) != nil else { return false }
            }
        }
        return true
    }
}
