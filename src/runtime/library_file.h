// Checks on a shared library file before it is mapped (dlopen of a truncated
// file dies with SIGBUS when a page past its end is touched) and a private
// copy to load it from (dlopen caches by path, so re-exporting to the same
// path would otherwise return the old library). Runtime layer; used by
// LoadModuleFromFile (module.cc). Libraries written by export_library end in
// a seal (magic, content length, 64-bit checksum) so that any corruption of
// the file (a flipped byte anywhere, not only in the headers) is refused
// before dlopen maps and runs it.
#pragma once

#include <string>
#include <vector>

namespace tessera {

// Reads `path` once, checks that it is a complete 64-bit little-endian ELF
// shared object (header, program headers, section headers, and every
// segment and section with file contents within the file; ValueError naming
// `path` and what is wrong otherwise), and writes it to a new file of a
// unique name in the temporary directory, whose name it returns: the caller
// dlopens that copy and removes it. RuntimeError when no copy can be made.
// Also checks the seal that SealLibraryFile appended: a file without one, or
// whose content does not match its checksum, is refused (ValueError).
std::string ValidatedPrivateCopy(const std::string& path);

// Appends the seal to the library just written at `path` (export_library
// calls it last). Sealing a sealed file replaces its seal.
void SealLibraryFile(const std::string& path);

// The linker arguments a library of kernels needs to find the runtime's
// entry points (TesseraParallelFor, ...) when loaded: -L and -rpath of the
// directory of libtessera_runtime, -ltessera_runtime, -lm.
std::vector<std::string> RuntimeLinkArgs();

}  // namespace tessera
