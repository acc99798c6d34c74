/*
 * coldstart-contain COMMAND [ARG...]: run COMMAND so that nothing it starts outlives it.
 *
 * The helper makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4+): a process
 * of the sample's tree that is orphaned, even one that left the process group and the session with
 * setsid and dropped its environment, is reparented to the helper instead of to init. Once COMMAND
 * ends, the helper SIGKILLs its children until it has none left (each killed parent hands its own
 * children to the helper), then ends as COMMAND ended: the same exit code, or the same signal.
 *
 * It replaces `setpriv --pdeathsig KILL`: COMMAND gets SIGKILL when the helper dies, the helper gets
 * SIGUSR1 when the runner dies. SIGUSR1 (the runner's "stop now", or its death) kills COMMAND and
 * every descendant at once. SIGTERM, SIGINT, SIGHUP and SIGQUIT are ignored by the helper alone: the
 * runner signals the process group, which COMMAND (and not the helper) answers. COMMAND starts with
 * the signal dispositions and mask the helper was started with.
 *
 * Built by the runner on first use (metrics/measure/contain.ts) with the system's C compiler.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now = 0;

static void on_stop(int sig) {
  (void)sig;
  stop_now = 1;
}

/* SIGKILL every live process whose parent is `self`; how many were found. */
static int kill_children(pid_t self) {
  DIR *proc = opendir("/proc");
  if (!proc) return 0;
  int found = 0;
  struct dirent *entry;
  while ((entry = readdir(proc)) != NULL) {
    if (!isdigit((unsigned char)entry->d_name[0])) continue;
    char file[300];
    snprintf(file, sizeof file, "/proc/%s/stat", entry->d_name);
    FILE *stat = fopen(file, "r");
    if (!stat) continue;
    char line[1024];
    size_t n = fread(line, 1, sizeof line - 1, stat);
    fclose(stat);
    line[n] = '\0';
    /* pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')' */
    char *close = strrchr(line, ')');
    char state;
    int ppid;
    if (!close || sscanf(close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid != self || state == 'Z') continue;
    kill((pid_t)atoi(entry->d_name), SIGKILL);
    found++;
  }
  closedir(proc);
  return found;
}

/* Kill and reap descendants until none is left (at most about 5 s for processes stuck in the kernel). */
static void sweep(pid_t self) {
  for (int round = 0; round < 5000; round++) {
    kill_children(self);
    pid_t reaped;
    while ((reaped = waitpid(-1, NULL, WNOHANG)) > 0) {
    }
    if (reaped < 0 && errno == ECHILD) return;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: coldstart-contain COMMAND [ARG...]\n");
    return 125;
  }
  pid_t self = getpid();
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);

  sigset_t handled, before;
  sigemptyset(&handled);
  sigaddset(&handled, SIGUSR1);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  sigaddset(&handled, SIGHUP);
  sigaddset(&handled, SIGQUIT);
  sigprocmask(SIG_BLOCK, &handled, &before);

  pid_t child = fork();
  if (child < 0) {
    perror("coldstart-contain: fork");
    return 125;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != self) _exit(125); /* the helper is already gone */
    sigprocmask(SIG_SETMASK, &before, NULL);
    execvp(argv[1], argv + 1);
    int error = errno;
    fprintf(stderr, "coldstart-contain: %s: %s\n", argv[1], strerror(error));
    _exit(error == ENOENT ? 127 : 126);
  }

  struct sigaction stop = {0};
  stop.sa_handler = on_stop;
  sigemptyset(&stop.sa_mask);
  sigaction(SIGUSR1, &stop, NULL);
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  sigprocmask(SIG_SETMASK, &before, NULL);

  int status = 0;
  int have_status = 0;
  while (!have_status) {
    if (stop_now) kill_children(self);
    int st;
    pid_t reaped = waitpid(-1, &st, 0);
    if (reaped == child) {
      status = st;
      have_status = 1;
    } else if (reaped < 0 && errno == ECHILD) {
      break;
    }
  }
  sweep(self);

  if (have_status && WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
    return 128 + sig;
  }
  return have_status ? WEXITSTATUS(status) : 125;
}
