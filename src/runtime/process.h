// Starting external programs (the system linker for export_library) without
// a shell: the program and its arguments travel as an argument vector to
// posix_spawnp, so no character of a path a user passes (quotes, `;`, `$(...)`)
// is ever interpreted. Runtime layer; the only place the project starts a
// process from C++.
#pragma once

#include <string>
#include <vector>

namespace tessera {

struct ProcessResult {
  int exit_code = -1;     // the program's exit status; -1 when it ended on a signal
  int term_signal = 0;    // the signal that ended it, 0 when it exited
  std::string output;     // what it wrote to stdout and stderr, interleaved
};

// Runs argv[0] (looked up on PATH when it has no '/') with arguments argv[1..],
// waits for it and returns its status and output. RuntimeError naming the
// program when it cannot be started. Never uses a shell.
ProcessResult RunProcess(const std::vector<std::string>& argv);

// Splits a command given in an environment variable such as CXX="ccache g++"
// into words at white space (no quoting, no expansion: the words become argv
// entries as they are). ValueError naming `what` when it is empty.
std::vector<std::string> SplitCommandWords(const std::string& command, const std::string& what);

}  // namespace tessera
