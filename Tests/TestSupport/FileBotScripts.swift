/// chat-bot scripts the file tests share.
public enum FileBotScripts {
    /// alice uploads `size` random bytes (k/M/G as the script reads them) once bob is there; bob
    /// expects the file and downloads it into `folder`.
    public static func uploadThenDownload(size: String, into folder: String) -> String {
        """
        bot alice {
            expect msg from bob "ready"
            upload random \(size)
            quit
        }
        bot bob {
            say ready
            expect file from alice within 30s
            download \(folder)
            quit
        }
        """
    }
}
