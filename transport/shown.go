package transport

import (
	"path"
	"strings"
)

// Shown is endpoint as it is said to people. A command's environment, as
// env(1) takes it (acp:env -i KEY=VALUE agent), keeps its names and loses
// its values, which are often keys: "KEY=…". Everything else is as given.
func Shown(endpoint string) string {
	b := BindingOf(endpoint)
	if b != BindingStdio && b != BindingACP {
		return endpoint
	}
	scheme, command, _ := strings.Cut(endpoint, ":")
	argv, err := SplitCommand(command)
	if err != nil || len(argv) == 0 || path.Base(argv[0]) != "env" {
		return endpoint
	}
	return scheme + ":" + JoinCommand(hideEnv(argv))
}

// hideEnv returns argv with the values of the assignments an env(1) at its
// start gives its command replaced by "…"; argv itself is not changed.
func hideEnv(argv []string) []string {
	if len(argv) == 0 || path.Base(argv[0]) != "env" {
		return argv
	}
	out := append([]string(nil), argv...)
	for i := 1; i < len(out); i++ {
		w := out[i]
		if strings.HasPrefix(w, "-") { // -i, -u NAME, --: options of env
			if w == "-u" || w == "--unset" || w == "-C" || w == "--chdir" || w == "-S" || w == "--split-string" {
				i++ // the option's argument
			}
			continue
		}
		name, _, ok := strings.Cut(w, "=")
		if !ok || name == "" {
			break // the command env runs
		}
		out[i] = name + "=…"
	}
	return out
}
