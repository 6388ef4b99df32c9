import Foundation
import Testing

@testable import ChatTUI

/// The README and chat-client(1) list every key `/help` lists (issue 24, defect 17).
struct KeyDocumentationTests {
    @Test(arguments: ["README.md", "packaging/man/chat-client.1"])
    func everyKeyIsDocumented(_ path: String) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
        for binding in KeyHelp.bindings {
            #expect(text.contains(binding.keys), "\(path) does not list \(binding.keys)")
        }
    }
}
