// The directory walk's platform half on macOS: getattrlistbulk, which
// returns a whole batch of entries with their attributes in one call, where
// readdir and a stat per entry take two calls an entry; readdir and fstatat
// where a file system does not support it. Directories are stat'ed (they are
// few), so that their sizes are st_blocks and st_size exactly, as du's.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/attr.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "scan_platform.h"
#include "scan_posix.h"

namespace diskprobe {
namespace scan {

namespace {

constexpr size_t kListBuffer = 128 * 1024;
// VNON and VDIR of enum vtype (<sys/vnode.h>, which the public SDK headers
// do not all carry): the values ATTR_CMN_OBJTYPE reports.
constexpr fsobj_type_t kTypeNone = 0;
constexpr fsobj_type_t kTypeDirectory = 2;

bool IsDotOrDotDot(const char* name) { return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')); }

// One entry: its decision, then its facts, told to the sink.
void Report(int fd, const char* name, EntrySink* sink, const Facts* bulk) {
  const size_t length = strlen(name);
  const Decision decision = sink->Decide(name, length);
  if (decision != Decision::kStat) {
    sink->Set(name, length, decision);
    return;
  }
  if (bulk != nullptr && !bulk->is_dir) {
    sink->Entry(name, length, bulk, 0, kWalkRead);
    return;
  }
  struct stat st;
  if (fstatat(fd, name, &st, kStatFlags) != 0) {
    sink->Entry(name, length, nullptr, errno, kWalkStat);
    return;
  }
  Facts facts;
  ToFacts(st, &facts);
  sink->Entry(name, length, &facts, 0, kWalkStat);
}

// readdir and fstatat: file systems without getattrlistbulk.
int ListByReaddir(int fd, EntrySink* sink) {
  const int copy = dup(fd);
  if (copy < 0) return errno;
  DIR* dir = fdopendir(copy);
  if (dir == nullptr) {
    const int error = errno;
    close(copy);
    return error;
  }
  int error = 0;
  for (;;) {
    if (sink->Stopped()) break;
    errno = 0;
    const struct dirent* entry = readdir(dir);
    if (entry == nullptr) {
      error = errno;
      break;
    }
    if (IsDotOrDotDot(entry->d_name)) continue;
    Report(fd, entry->d_name, sink, nullptr);
  }
  closedir(dir);
  return error;
}

}  // namespace

int List(const Dir& dir, EntrySink* sink, std::vector<char>* scratch) {
  const int fd = static_cast<int>(dir.handle);
  struct attrlist request = {};
  request.bitmapcount = ATTR_BIT_MAP_COUNT;
  request.commonattr = ATTR_CMN_RETURNED_ATTRS | ATTR_CMN_NAME | ATTR_CMN_ERROR | ATTR_CMN_DEVID | ATTR_CMN_OBJTYPE | ATTR_CMN_FILEID;
  request.fileattr = ATTR_FILE_LINKCOUNT | ATTR_FILE_ALLOCSIZE | ATTR_FILE_DATALENGTH;
  if (scratch->size() < kListBuffer) scratch->resize(kListBuffer);
  std::vector<char>& buffer = *scratch;
  bool first = true;
  for (;;) {
    if (sink->Stopped()) return 0;
    const int count = getattrlistbulk(fd, &request, buffer.data(), buffer.size(), 0);
    if (count < 0) {
      const int error = errno;
      if (error == EINTR) continue;
      // Not supported here: list the slow way, from the start.
      if (first && (error == ENOTSUP || error == EINVAL)) return ListByReaddir(fd, sink);
      return error;
    }
    first = false;
    if (count == 0) return 0;
    const char* entry = buffer.data();
    for (int i = 0; i < count; ++i) {
      const char* field = entry;
      uint32_t length;
      memcpy(&length, field, sizeof length);
      field += sizeof(uint32_t);
      attribute_set_t returned;
      memcpy(&returned, field, sizeof returned);
      field += sizeof(attribute_set_t);
      // In the order getattrlistbulk(2) packs them: the error first, then the
      // common attributes by bit, then the file attributes by bit.
      uint32_t error = 0;
      if (returned.commonattr & ATTR_CMN_ERROR) {
        memcpy(&error, field, sizeof error);
        field += sizeof(uint32_t);
      }
      const char* name = nullptr;
      if (returned.commonattr & ATTR_CMN_NAME) {
        attrreference_t reference;
        memcpy(&reference, field, sizeof reference);
        name = field + reference.attr_dataoffset;
        field += sizeof(attrreference_t);
      }
      Facts facts;
      if (returned.commonattr & ATTR_CMN_DEVID) {
        dev_t dev;
        memcpy(&dev, field, sizeof dev);
        facts.dev = static_cast<uint64_t>(dev);
        field += sizeof(dev_t);
      }
      fsobj_type_t type = kTypeNone;
      if (returned.commonattr & ATTR_CMN_OBJTYPE) {
        memcpy(&type, field, sizeof type);
        field += sizeof(fsobj_type_t);
      }
      if (returned.commonattr & ATTR_CMN_FILEID) {
        memcpy(&facts.ino, field, sizeof(uint64_t));
        field += sizeof(uint64_t);
      }
      if (returned.fileattr & ATTR_FILE_LINKCOUNT) {
        uint32_t links;
        memcpy(&links, field, sizeof links);
        facts.nlink = links;
        field += sizeof(uint32_t);
      }
      if (returned.fileattr & ATTR_FILE_ALLOCSIZE) {
        off_t allocated;
        memcpy(&allocated, field, sizeof allocated);
        facts.allocated = allocated > 0 ? static_cast<uint64_t>(allocated) : 0;
        field += sizeof(off_t);
      }
      if (returned.fileattr & ATTR_FILE_DATALENGTH) {
        off_t size;
        memcpy(&size, field, sizeof size);
        facts.apparent = size > 0 ? static_cast<uint64_t>(size) : 0;
        field += sizeof(off_t);
      }
      facts.is_dir = type == kTypeDirectory;
      entry += length;
      if (name == nullptr || IsDotOrDotDot(name)) continue;
      if (error != 0) {
        sink->Entry(name, strlen(name), nullptr, static_cast<int>(error), kWalkRead);
        continue;
      }
      Report(fd, name, sink, &facts);
      if (sink->Stopped()) return 0;
    }
  }
}

}  // namespace scan
}  // namespace diskprobe
