/// An upload the glue is receiving: its partial record and whom it came from and goes to, as
/// the header found them (the uploader may be gone when the body ends).
struct ActiveUpload {
    var partial: PartialUpload
    let senderNick: String
    let senderAccount: String?
    /// A private file's recipient as the header found it.
    let recipient: FileRecipient?
}
