// Package trust decides which of a workspace's own files rein may act
// on.
//
// Some files in a workspace can run commands on the user's machine,
// change where model requests and keys go, or loosen the sandbox:
// settings with hooks, allow rules, sensors or a commit gate; .mcp.json
// servers; provider fields of .rein/config.json; loosening fields of
// .rein/security.json; and the scripts those commands name inside the
// workspace. A cloned repository controls all of them, so none may act
// until the user trusts them.
//
// Scan reads those files and reduces each to its active items: one line
// per thing it would do ("hook PreToolUse (Bash): ./check.sh",
// "providers.openai.base_url = http://…", "script x.sh sha256:…").
// Harmless content (a model name, deny rules, a comment) is left out, so
// changing it does not ask again. A File's Hash covers its items.
//
// Store is the user's record of what they trusted
// (~/.config/rein/trusted.json): per workspace, per file, the hash and
// the items. Check compares a Snapshot with it; a file is trusted when
// its hash is the recorded one, and a Change lists the items added and
// removed since, so the user sees what is new before anything new runs.
// Trust is per file: the settings file rein writes "allow always"
// answers to stays trusted (Store.Update) while a new .mcp.json asks.
package trust
