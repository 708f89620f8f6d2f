package movevm

// RequireLibs is requireLibs for the external tests.
var RequireLibs = requireLibs
