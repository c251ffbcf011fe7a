// SPDX-License-Identifier: Apache-2.0
// runOnDask (batch_dask.h): writes the manifest, starts the Python interpreter on
// openvgf.dask.batch_main with a pipe as its file descriptor 3, and reads the records it
// writes there (the format is described in python/openvgf/dask.py). The interpreter's
// stdout and stderr stay the command's, so Dask's own warnings reach the user.
#include "batch_dask.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "command.h"

extern char** environ;

namespace openvgf::cli {
namespace {

namespace fs = std::filesystem;

// Debian's numpy and python3-distributed belong to /usr/bin/python3 (a python3 earlier on
// PATH, such as a pyenv one, usually lacks them); OPENVGF_PYTHON names another.
std::string interpreter() {
  const char* chosen = std::getenv("OPENVGF_PYTHON");
  return chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3";
}

// Imports what batch_main needs one by one so that a missing one is named, then runs it.
constexpr const char* kLauncher = R"(import os, sys
for module in ("numpy", "distributed", "openvgf.dask"):
    try:
        __import__(module)
    except ImportError as error:
        os.write(3, b"\0".join([b"missing", module.encode(), str(error).encode()]) + b"\0\n")
        sys.exit(0)
import openvgf.dask
sys.exit(openvgf.dask.batch_main(sys.argv[1]))
)";

std::string installHint(const std::string& module) {
  if (module == "numpy") return "install python3-numpy";
  if (module == "distributed") return "install python3-distributed (scripts/install-deps.sh does)";
  return "install the openvgf Python package (`pip install .` in the source tree), or put a build's python/ folder "
         "on PYTHONPATH";
}

// The build tree's package (<build>/python/openvgf next to <build>/cli/openvgf) goes first on
// PYTHONPATH, so a build's command uses its own bindings; an installed command finds the
// package where pip put it.
std::vector<std::string> environment() {
  std::string pythonPath;
  std::error_code ec;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path package = executable.parent_path().parent_path() / "python";
    if (fs::is_regular_file(package / "openvgf" / "__init__.py", ec)) pythonPath = package.string();
  }
  std::vector<std::string> variables;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    std::string entry(*variable);
    if (entry.starts_with("PYTHONPATH=")) {
      if (pythonPath.empty()) {
        pythonPath = entry.substr(11);
      } else if (entry.size() > 11) {
        pythonPath += ":" + entry.substr(11);
      }
      continue;
    }
    variables.push_back(std::move(entry));
  }
  if (!pythonPath.empty()) variables.push_back("PYTHONPATH=" + pythonPath);
  return variables;
}

void appendField(std::string& manifest, const std::string& field) {
  manifest += field;
  manifest += '\0';
}

std::string manifestOf(const DaskBatch& batch) {
  std::string manifest;
  appendField(manifest, "openvgf-batch-manifest-1");
  appendField(manifest, batch.scheduler);
  appendField(manifest, batch.model);
  appendField(manifest, std::to_string(batch.options.size()));
  for (const auto& [key, value] : batch.options) {
    appendField(manifest, key);
    appendField(manifest, value);
  }
  appendField(manifest, std::to_string(batch.items.size()));
  for (const DaskItem& item : batch.items) {
    appendField(manifest, std::to_string(item.inputs.size()));
    for (const std::string& file : item.inputs) appendField(manifest, file);
    appendField(manifest, std::to_string(item.outputs.size()));
    for (const std::string& file : item.outputs) appendField(manifest, file);
  }
  return manifest;
}

// The manifest in a private temporary file, removed when this goes.
class ManifestFile {
 public:
  explicit ManifestFile(const std::string& contents) {
    path_ = (fs::temp_directory_path() / "openvgf-batch-XXXXXX").string();
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) fail(ErrorCode::Environment, fmt::format("{}: cannot create the batch manifest: {}", path_,
                                                         std::strerror(errno)));
    std::size_t written = 0;
    while (written < contents.size()) {
      const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        ::unlink(path_.c_str());
        fail(ErrorCode::Environment, fmt::format("{}: cannot write the batch manifest", path_));
      }
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  ~ManifestFile() { ::unlink(path_.c_str()); }
  ManifestFile(const ManifestFile&) = delete;
  ManifestFile& operator=(const ManifestFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Starts the interpreter with `recordsFd` as its descriptor 3; returns its pid.
pid_t spawnPython(const std::string& python, const std::string& manifest, int recordsFd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, recordsFd, 3);
  std::vector<std::string> arguments{python, "-c", kLauncher, manifest};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::vector<std::string> variables = environment();
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int error = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    fail(ErrorCode::Environment,
         fmt::format("--scheduler: cannot start the Python interpreter {}: {}: install python3 (with python3-numpy and "
                     "python3-distributed), or name another interpreter in OPENVGF_PYTHON",
                     python, std::strerror(error)));
  }
  return pid;
}

// Splits the record stream into records (fields ended by NUL, records by NUL and newline).
class RecordReader {
 public:
  // Appends bytes; returns the records completed by them.
  std::vector<std::vector<std::string>> feed(const char* data, std::size_t size) {
    std::vector<std::vector<std::string>> records;
    for (std::size_t i = 0; i < size; ++i) {
      const char c = data[i];
      if (c == '\n' && field_.empty() && !fields_.empty() && endedField_) {
        records.push_back(std::move(fields_));
        fields_.clear();
        continue;
      }
      endedField_ = c == '\0';
      if (c == '\0') {
        fields_.push_back(std::move(field_));
        field_.clear();
      } else {
        field_ += c;
      }
    }
    return records;
  }

 private:
  std::vector<std::string> fields_;
  std::string field_;
  bool endedField_ = false;
};

std::optional<std::size_t> indexOf(const std::string& field, std::size_t count) {
  char* end = nullptr;
  const unsigned long long index = std::strtoull(field.c_str(), &end, 10);
  if (field.empty() || *end != '\0' || index >= count) return std::nullopt;
  return static_cast<std::size_t>(index);
}

struct Outcome {
  std::vector<bool> reported;
  std::optional<std::string> fatal;  // nothing could run
};

void handle(const std::vector<std::string>& record, const std::string& python, std::size_t count, Outcome& outcome,
            const std::function<void(std::size_t)>& done,
            const std::function<void(std::size_t, int, const std::string&)>& failed) {
  const std::string& kind = record[0];
  std::optional<std::size_t> index;
  if (record.size() >= 2) index = indexOf(record[1], count);
  if (kind == "missing" && record.size() == 3) {
    outcome.fatal = fmt::format("--scheduler: {} cannot import the Python module '{}' ({}): {}", python, record[1],
                                record[2], installHint(record[1]));
  } else if (kind == "fatal" && record.size() == 2) {
    outcome.fatal = record[1];
  } else if (kind == "done" && record.size() == 3 && index && !outcome.reported[*index]) {
    outcome.reported[*index] = true;
    done(*index);
  } else if (kind == "failed" && record.size() == 4 && index && !outcome.reported[*index]) {
    outcome.reported[*index] = true;
    failed(*index, record[2] == "2" ? 2 : 1, record[3]);
  } else {
    outcome.fatal = fmt::format("--scheduler: openvgf.dask.batch_main wrote an unexpected record '{}' ({} fields): "
                                "the openvgf Python package and this command are of different versions?",
                                kind, record.size());
  }
}

}  // namespace

void runOnDask(const DaskBatch& batch, const std::function<void(std::size_t index)>& done,
               const std::function<void(std::size_t index, int exitCode, const std::string& message)>& failed) {
  const ManifestFile manifest(manifestOf(batch));
  const std::string python = interpreter();
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    fail(ErrorCode::Environment, fmt::format("--scheduler: cannot create a pipe: {}", std::strerror(errno)));
  }
  // Above 3, so that the child's dup2 onto 3 always makes a descriptor without close-on-exec.
  const int writeFd = ::fcntl(pipeFds[1], F_DUPFD_CLOEXEC, 10);
  ::close(pipeFds[1]);
  pid_t pid = 0;
  try {
    if (writeFd < 0) fail(ErrorCode::Environment, "--scheduler: cannot duplicate the records pipe");
    pid = spawnPython(python, manifest.path(), writeFd);
  } catch (...) {
    ::close(pipeFds[0]);
    if (writeFd >= 0) ::close(writeFd);
    throw;
  }
  ::close(writeFd);
  Outcome outcome{std::vector<bool>(batch.items.size(), false), std::nullopt};
  RecordReader reader;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (const auto& record : reader.feed(buffer, static_cast<std::size_t>(n))) {
      if (!outcome.fatal) handle(record, python, batch.items.size(), outcome, done, failed);
    }
  }
  ::close(pipeFds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (outcome.fatal) fail(ErrorCode::Environment, *outcome.fatal);
  const std::string ended = WIFEXITED(status) ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                              : fmt::format("was killed by signal {}", WTERMSIG(status));
  for (std::size_t i = 0; i < batch.items.size(); ++i) {
    if (!outcome.reported[i]) {
      failed(i, 1, fmt::format("not run: the Dask client process ({} running openvgf.dask.batch_main) {} before "
                               "reporting it", python, ended));
    }
  }
}

}  // namespace openvgf::cli
