/*===- io.c - Semihosting output, exit code and a tiny printf -------------===*
 *
 * No libc stdio: output goes through the semihosting SYS_WRITE call to the ":tt" handle
 * (the host's stdout), buffered per line; the exit code through SYS_EXIT_EXTENDED, which QEMU
 * turns into its own exit status. QEMU must run with -semihosting-config enable=on.
 * ember_platform_log (the runtime's weak log hook) is defined here, so runtime errors print.
 * board_read_file reads a host file (SYS_OPEN, SYS_FLEN, SYS_READ, SYS_CLOSE), for firmware
 * that takes its inputs from the host at run time (targets/firmware/replay.cc).
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"

enum { kSysOpen = 0x01, kSysClose = 0x02, kSysWrite = 0x05, kSysRead = 0x06, kSysFlen = 0x0C, kSysExitExtended = 0x20 };

static uintptr_t semihost(uintptr_t op, const void* arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = (uintptr_t)arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static int g_stdout = -1;
static char g_line[128];
static size_t g_used;

void board_flush(void) {
  if (g_used == 0) return;
  if (g_stdout < 0) {
    const uintptr_t open_args[3] = {(uintptr_t)":tt", 4 /* "w" */, 3};
    g_stdout = (int)semihost(kSysOpen, open_args);
  }
  const uintptr_t write_args[3] = {(uintptr_t)g_stdout, (uintptr_t)g_line, g_used};
  semihost(kSysWrite, write_args);
  g_used = 0;
}

static void put(char c) {
  g_line[g_used++] = c;
  if (c == '\n' || g_used == sizeof g_line) board_flush();
}

long board_read_file(const char* path, void* buffer, unsigned long capacity) {
  size_t n = 0;
  while (path[n] != '\0') ++n;
  const uintptr_t open_args[3] = {(uintptr_t)path, 1 /* "rb" */, n};
  const intptr_t handle = (intptr_t)semihost(kSysOpen, open_args);
  if (handle < 0) return -1;
  const uintptr_t flen_args[1] = {(uintptr_t)handle};
  const intptr_t length = (intptr_t)semihost(kSysFlen, flen_args);
  long result = -2;
  if (length >= 0 && (unsigned long)length <= capacity) {
    const uintptr_t read_args[3] = {(uintptr_t)handle, (uintptr_t)buffer, (uintptr_t)length};
    result = semihost(kSysRead, read_args) == 0 ? (long)length : -1;  /* returns the bytes not read */
  }
  const uintptr_t close_args[1] = {(uintptr_t)handle};
  semihost(kSysClose, close_args);
  return result;
}

void board_exit(int code) {
  board_flush();
  const uintptr_t args[2] = {0x20026 /* ADP_Stopped_ApplicationExit */, (uintptr_t)code};
  semihost(kSysExitExtended, args);
  for (;;) {
  }
}

static void put_padded(const char* s, size_t len, int width, int left, char pad) {
  if (!left)
    for (int i = (int)len; i < width; ++i) put(pad);
  for (size_t i = 0; i < len; ++i) put(s[i]);
  if (left)
    for (int i = (int)len; i < width; ++i) put(' ');
}

void board_vprintf(const char* fmt, va_list args) {
  for (; *fmt; ++fmt) {
    if (*fmt != '%') {
      put(*fmt);
      continue;
    }
    ++fmt;
    int left = 0, width = 0, longs = 0;
    char pad = ' ';
    for (; *fmt == '-' || *fmt == '0'; ++fmt) {
      if (*fmt == '-') left = 1;
      else pad = '0';
    }
    for (; *fmt >= '0' && *fmt <= '9'; ++fmt) width = width * 10 + (*fmt - '0');
    for (; *fmt == 'l' || *fmt == 'z'; ++fmt) longs += *fmt == 'l' ? 1 : (sizeof(size_t) > 4 ? 2 : 1);
    char buf[24];
    size_t len = 0;
    const char* s = buf;
    switch (*fmt) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'p': {
        int is_signed = *fmt == 'd' || *fmt == 'i';
        unsigned base = (*fmt == 'x' || *fmt == 'X' || *fmt == 'p') ? 16 : 10;
        uint64_t v;
        int negative = 0;
        if (*fmt == 'p') v = (uintptr_t)va_arg(args, void*);
        else if (longs >= 2) v = is_signed ? (uint64_t)va_arg(args, long long) : va_arg(args, unsigned long long);
        else if (longs == 1) v = is_signed ? (uint64_t)(int64_t)va_arg(args, long) : va_arg(args, unsigned long);
        else v = is_signed ? (uint64_t)(int64_t)va_arg(args, int) : va_arg(args, unsigned);
        if (is_signed && (int64_t)v < 0) negative = 1, v = (uint64_t)(-(int64_t)v);
        char digits[24];
        size_t n = 0;
        const char* alphabet = *fmt == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        do {
          /* base 10 or 16 only: shifts and a 32-bit divide keep libgcc's 64-bit division out
           * of small builds for the common case. */
          if (base == 16) digits[n++] = alphabet[v & 15], v >>= 4;
          else if (v <= 0xFFFFFFFFu) digits[n++] = (char)('0' + (uint32_t)v % 10u), v = (uint32_t)v / 10u;
          else digits[n++] = (char)('0' + v % 10u), v /= 10u;
        } while (v);
        if (negative) buf[len++] = '-';
        while (n) buf[len++] = digits[--n];
        break;
      }
      case 'c': buf[0] = (char)va_arg(args, int); len = 1; break;
      case 's': s = va_arg(args, const char*); if (!s) s = "(null)"; while (s[len]) ++len; break;
      case '%': buf[0] = '%'; len = 1; break;
      case '\0': return;
      default: buf[0] = '%'; buf[1] = *fmt; len = 2; break;
    }
    put_padded(s, len, width, left, pad);
  }
}

void board_printf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  board_vprintf(fmt, args);
  va_end(args);
}

/* The runtime's weak log hook (runtime/log.h): one message per line. */
void ember_platform_log(const char* fmt, va_list args) {
  board_printf("ember: ");
  board_vprintf(fmt, args);
  put('\n');
}
