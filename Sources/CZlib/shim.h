// zlib (the system's libz) for BriefcaseKit's gzip layer. Debian/Ubuntu: apt-get install libz-dev.
#include <zlib.h>
