import CLIOptions
import Testing

struct SettingsFileTests {
    static let keys: Set<String> = ["nick", "rooms", "colors", "port"]

    /// `key = value` lines, whole-line comments, lists, booleans and numbers; the last line wins.
    @Test func readsSettings() throws {
        let file = try SettingsFile(text: """
            # comment
              Nick = alice
            rooms = #lobby, dev ,, ops
            colors = off
            port = 4433
            nick = bob
            """, name: "client.conf", keys: Self.keys)
        #expect(file.string("nick") == "bob")
        #expect(file.list("rooms") == ["#lobby", "dev", "ops"])
        #expect(try file.bool("colors") == false)
        #expect(try file.integer("port", in: 1...65535) == 4433)
        #expect(file.string("missing") == nil)
    }

    /// Mistakes name the file and the line.
    @Test func mistakesNameTheLine() {
        #expect(throws: UsageError.self) { try SettingsFile(text: "nick = a\ncolour = on", name: "c.conf", keys: Self.keys) }
        do {
            _ = try SettingsFile(text: "nick = a\nno equals sign", name: "c.conf", keys: Self.keys)
            Issue.record("accepted a line without =")
        } catch {
            #expect(error.message.hasPrefix("c.conf line 2:"))
        }
        do {
            let file = try SettingsFile(text: "colors = maybe", name: "c.conf", keys: Self.keys)
            _ = try file.bool("colors")
            Issue.record("accepted maybe")
        } catch {
            #expect(error.message == "c.conf line 1: colors must be on or off, not 'maybe'")
        }
    }
}
