import ChatClientKit
import ChatProtocol
import ChatTUI

/// Passwords in the full-screen client (`/register`, `/login NICK`, `/password`): asked for on the
/// input line with nothing echoed, typed into an editor of their own that keeps no history and is
/// dropped afterwards, never shown, logged or put in the input history. Esc or Ctrl-C cancels.
extension TUIMode {
    struct SecretEntry {
        let purpose: SecretPurpose
        /// The first of two entries of a new password, waiting for its confirmation.
        var first: String?

        /// A new password is typed twice; a login's once.
        var needsConfirmation: Bool { if case .login = purpose { false } else { true } }
    }

    func askForSecret(_ purpose: SecretPurpose) {
        stopTyping()
        secretEntry = SecretEntry(purpose: purpose)
        secretEditor = LineEditor(historyLimit: 0)
        model.secretPrompt = prompt(for: purpose, confirming: false)
        needsRender = true
    }

    private func prompt(for purpose: SecretPurpose, confirming: Bool) -> String {
        if confirming { return "again, to confirm (Esc cancels): " }
        return purpose.prompt(nick: session.nick) + " (Esc cancels): "
    }

    /// A key while a password is asked for: editing keys go to the secret editor, Enter submits,
    /// Esc and Ctrl-C cancel. Nothing else (history, completion, typing indicators) happens.
    func handleSecretKey(_ key: KeyEvent) {
        switch key {
        case .escape, .control("c"):
            endSecret()
            note("cancelled", in: currentRoomName)
        case .enter:
            let typed = secretEditor.text
            secretEditor = LineEditor(historyLimit: 0)
            submitSecret(typed)
        case .up, .down, .tab:
            break  // no history, no completion
        default:
            _ = secretEditor.handle(key)
        }
        needsRender = true
    }

    private func submitSecret(_ typed: String) {
        guard var entry = secretEntry else { return }
        guard ChatValidation.isAcceptablePassword(typed) else {
            endSecret()
            return note("a password is 8 to 256 bytes; nothing was sent", in: currentRoomName)
        }
        if entry.needsConfirmation, entry.first == nil {
            entry.first = typed
            secretEntry = entry
            model.secretPrompt = prompt(for: entry.purpose, confirming: true)
            return
        }
        if entry.needsConfirmation, entry.first != typed {
            endSecret()
            return note("the two passwords differ; nothing was sent", in: currentRoomName)
        }
        endSecret()
        let request = entry.purpose.request(password: typed)
        self.request(request.message, doing: request.doing)
    }

    private func endSecret() {
        secretEntry = nil
        secretEditor = LineEditor(historyLimit: 0)
        model.secretPrompt = nil
    }
}
