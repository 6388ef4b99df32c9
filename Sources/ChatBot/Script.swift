/// A parsed bot script (README, "Bot scripts"): every bot connects when the script starts and
/// runs its own commands once all of them are in their first room.
struct Script: Equatable, Sendable {
    var bots: [ScriptBotDefinition]
}
