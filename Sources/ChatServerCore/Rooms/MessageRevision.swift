/// What an `edit` or a `redact` does to the stored message its `ref` names, the same in every
/// store (PROTOCOL.md section 15): an edit replaces the message's text and records when; a
/// redaction erases the message's text and file, and the text of each of its edits (erased, not
/// hidden: a store rewrites what it holds). Reactions change no stored message: they are events.
public enum MessageRevision {
    /// `target` as `revision` leaves it; nil when the revision changes nothing stored (a reaction,
    /// a revision of another message, of an event that is no message, or of a redacted message).
    public static func revised(_ target: StoredEvent, by revision: StoredEvent) -> StoredEvent? {
        guard target.kind.isMessage, !target.redacted, revision.room == target.room, revision.ref == target.seq else { return nil }
        var result = target
        switch revision.kind {
        case .edit:
            result.text = revision.text
            result.edited = revision.ts
        case .redact:
            result.text = ""
            result.redacted = true
            result.edited = nil
            result.file = nil
            result.size = nil
            result.sha256 = nil
        default:
            return nil
        }
        return result
    }

    /// An edit of a message that was redacted since: its text erased too.
    public static func erased(_ edit: StoredEvent) -> StoredEvent {
        var result = edit
        result.text = ""
        return result
    }
}
