// Shell-free process launching (see process.h).
#include "runtime/process.h"

#include "runtime/error.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

extern char** environ;

namespace tessera {

ProcessResult RunProcess(const std::vector<std::string>& argv) {
  TESSERA_CHECK_OR_THROW(!argv.empty() && !argv[0].empty(), ValueError) << "RunProcess: no program to run";
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    TESSERA_THROW(RuntimeError) << "cannot run " << argv[0] << ": pipe failed: " << std::strerror(errno);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    TESSERA_THROW(RuntimeError) << "cannot run " << argv[0] << ": " << std::strerror(rc);
  }
  ProcessResult result;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n > 0) {
      result.output.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) TESSERA_THROW(RuntimeError) << "waiting for " << argv[0] << " failed: " << std::strerror(errno);
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  return result;
}

std::vector<std::string> SplitCommandWords(const std::string& command, const std::string& what) {
  std::vector<std::string> words;
  std::istringstream in(command);
  std::string w;
  while (in >> w) words.push_back(w);
  TESSERA_CHECK_OR_THROW(!words.empty(), ValueError) << what << " names no program";
  return words;
}

}  // namespace tessera
