// Validation and private copies of shared library files (see library_file.h).
#include "runtime/library_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernel_abi.h"

namespace tessera {

namespace {

[[noreturn]] void Bad(const std::string& path, const std::string& what) {
  TESSERA_THROW(ValueError) << "cannot load module " << path << ": " << what;
}

// offset + count * size <= file size, without overflow.
bool Within(uint64_t offset, uint64_t count, uint64_t size, uint64_t file_size) {
  if (offset > file_size) return false;
  if (size != 0 && count > (file_size - offset) / size) return false;
  return true;
}

// The seal: 8 magic bytes, the content length and the FNV-1a 64 checksum of
// the content, both little-endian uint64, appended after the ELF file (the
// loader ignores bytes past the last section).
constexpr char kSealMagic[8] = {'T', 'S', 'R', 'S', 'E', 'A', 'L', '1'};
constexpr size_t kSealSize = 24;

uint64_t Checksum(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t ReadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void WriteU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

bool HasSeal(const std::vector<char>& bytes) {
  return bytes.size() >= kSealSize && std::memcmp(bytes.data() + bytes.size() - kSealSize, kSealMagic, 8) == 0;
}

// Checks the seal and returns the length of the sealed content.
size_t CheckSeal(const std::string& path, const std::vector<char>& bytes) {
  if (!HasSeal(bytes)) {
    Bad(path, "it has no Tessera seal at its end: it was not written by export_library, or it was truncated");
  }
  const char* seal = bytes.data() + bytes.size() - kSealSize;
  const uint64_t length = ReadU64(seal + 8);
  if (length != bytes.size() - kSealSize) {
    Bad(path, "its seal records " + std::to_string(length) + " bytes of content but the file holds " +
                  std::to_string(bytes.size() - kSealSize) + " (truncated or modified)");
  }
  if (ReadU64(seal + 16) != Checksum(bytes.data(), length)) {
    Bad(path, "its content does not match the checksum in its seal (the file is corrupted or was modified "
              "after export_library)");
  }
  return length;
}

}  // namespace

namespace {

void Validate(const std::string& path, const std::vector<char>& bytes) {
  const uint64_t n = bytes.size();
  if (n < sizeof(Elf64_Ehdr)) {
    Bad(path, "the file is " + std::to_string(n) + " bytes long, too short for an ELF header (truncated?)");
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) Bad(path, "not an ELF shared library (bad magic number)");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    Bad(path, "not a 64-bit little-endian ELF file");
  }
  if (eh.e_type != ET_DYN) Bad(path, "not a shared library (ELF type " + std::to_string(eh.e_type) + ")");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || !Within(eh.e_phoff, eh.e_phnum, eh.e_phentsize, n)) {
    Bad(path, "the program headers lie beyond the end of the file (" + std::to_string(n) + " bytes; truncated?)");
  }
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && !Within(ph.p_offset, 1, ph.p_filesz, n)) {
      Bad(path, "segment " + std::to_string(i) + " ends at byte " + std::to_string(ph.p_offset + ph.p_filesz) +
                    " beyond the end of the file (" + std::to_string(n) + " bytes; truncated?)");
    }
  }
  if (eh.e_shnum != 0) {
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || !Within(eh.e_shoff, eh.e_shnum, eh.e_shentsize, n)) {
      Bad(path, "the section headers lie beyond the end of the file (" + std::to_string(n) + " bytes; truncated?)");
    }
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      std::memcpy(&sh, bytes.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
      if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && !Within(sh.sh_offset, 1, sh.sh_size, n)) {
        Bad(path, "section " + std::to_string(i) + " ends at byte " + std::to_string(sh.sh_offset + sh.sh_size) +
                      " beyond the end of the file (" + std::to_string(n) + " bytes; truncated?)");
      }
    }
  }
}

// What a file that is not a regular file is, for messages.
const char* FileTypeName(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown file type";
}

// The bytes of `path`, which must be a regular file. Opened without blocking
// (a FIFO would otherwise wait forever for a writer) and checked with stat
// before anything is read (reading a directory fails inside libstdc++).
std::vector<char> ReadRegularFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {  // before open: a socket cannot be opened
    Bad(path, std::string("it is ") + FileTypeName(st.st_mode) +
                  ", not a regular file (a shared library written by export_library)");
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) Bad(path, std::string("cannot open it (") + std::strerror(errno) + ")");
  std::string problem;  // checked again on the open file: the path may have changed in between
  if (::fstat(fd, &st) != 0) {
    problem = std::string("cannot stat it (") + std::strerror(errno) + ")";
  } else if (!S_ISREG(st.st_mode)) {
    problem = std::string("it is ") + FileTypeName(st.st_mode) +
              ", not a regular file (a shared library written by export_library)";
  }
  if (!problem.empty()) {
    ::close(fd);
    Bad(path, problem);
  }
  std::vector<char> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (true) {
    if (done == bytes.size()) bytes.resize(bytes.size() + 4096);  // the file may have grown
    ssize_t r = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int err = errno;
      ::close(fd);
      Bad(path, std::string("reading it failed (") + std::strerror(err) + ")");
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace

std::string ValidatedPrivateCopy(const std::string& path) {
  std::vector<char> bytes = ReadRegularFile(path);
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    Bad(path, "not an ELF shared library (bad magic number)");
  }
  bytes.resize(CheckSeal(path, bytes));
  Validate(path, bytes);
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/tessera_module_XXXXXX.so";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemps(name.data(), 3);
  if (fd < 0) TESSERA_THROW(RuntimeError) << "cannot load module " << path << ": no temporary copy (" << std::strerror(errno) << ")";
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(name.data());
      TESSERA_THROW(RuntimeError) << "cannot load module " << path << ": writing its temporary copy failed ("
                                  << std::strerror(err) << ")";
    }
    done += static_cast<size_t>(w);
  }
  ::close(fd);
  return std::string(name.data());
}

void SealLibraryFile(const std::string& path) {
  std::vector<char> bytes;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) TESSERA_THROW(ValueError) << "cannot seal " << path << ": cannot open it (" << std::strerror(errno) << ")";
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (HasSeal(bytes)) bytes.resize(bytes.size() - kSealSize);
  char seal[kSealSize];
  std::memcpy(seal, kSealMagic, 8);
  WriteU64(seal + 8, bytes.size());
  WriteU64(seal + 16, Checksum(bytes.data(), bytes.size()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.write(seal, kSealSize);
  if (!out) TESSERA_THROW(RuntimeError) << "cannot seal " << path << ": writing failed";
}

std::vector<std::string> RuntimeLinkArgs() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&TesseraParallelFor), &info) == 0 || info.dli_fname == nullptr) {
    TESSERA_THROW(RuntimeError) << "cannot locate libtessera_runtime";
  }
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return {"-L" + dir, "-ltessera_runtime", "-Wl,-rpath," + dir, "-lm"};
}

}  // namespace tessera
