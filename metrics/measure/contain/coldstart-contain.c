/*
 * coldstart-contain [--pid-ns] [--cgroup CGROUP.PROCS] COMMAND [ARG...]: run COMMAND so that nothing
 * it starts outlives it.
 * coldstart-contain --probe-pid-ns: exit 0 when --pid-ns works here (root, or user namespaces allowed).
 *
 * The helper makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4+): a process
 * of the sample's tree that is orphaned, even one that left the process group and the session with
 * setsid and dropped its environment, is reparented to the helper instead of to init. Once COMMAND
 * ends, the helper SIGKILLs its children until it has none left (each killed parent hands its own
 * children to the helper), then ends as COMMAND ended: the same exit code, or the same signal.
 *
 * With --pid-ns the helper first moves its children into a new PID namespace (and mount namespace,
 * with its own /proc), as root or, where user namespaces are allowed, inside a user namespace that
 * maps the caller's uid and gid to themselves. Its first child is the namespace's init (pid 1 there),
 * the same program: it forks COMMAND (pid 2), reaps whatever is orphaned in the namespace and exits
 * when COMMAND ends, and the kernel then kills every process left in the namespace. The app cannot
 * end that: init ignores every signal sent from inside its namespace that it has no handler for,
 * SIGKILL and SIGSTOP included, and the helper outside has no pid inside. Killing the helper (only
 * possible through the process group) kills init (its parent-death signal), and with it the rest.
 *
 * Without a namespace the app can SIGKILL the helper, and the helper's orphans then go to init. With
 * --cgroup the helper first joins a cgroup the runner made for the sample, which every descendant
 * inherits wherever it is reparented, and the runner kills the cgroup whole after the sample.
 *
 * It replaces `setpriv --pdeathsig KILL`: COMMAND gets SIGKILL when the helper dies, the helper gets
 * SIGUSR1 when the runner dies. SIGUSR1 (the runner's "stop now", or its death) kills COMMAND and
 * every descendant at once. SIGTERM and SIGINT sent to the helper are passed on to COMMAND (a deadline
 * that signals the helper's pid alone reaches what it contains); COLDSTART_CONTAIN_GRACE_MS later
 * (default 5000) the helper SIGKILLs the whole tree if COMMAND has not ended. SIGHUP and SIGQUIT are
 * ignored by the helper alone: the runner signals the process group, which COMMAND answers. COMMAND
 * starts with the signal dispositions and mask the helper was started with.
 *
 * Built by the runner on first use (metrics/measure/contain.ts) with the system's C compiler.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now = 0;

static volatile sig_atomic_t pass_on = 0;

static void on_stop(int sig) {
  (void)sig;
  stop_now = 1;
}

/* SIGTERM or SIGINT: passed on to COMMAND by the waiting loop, and SIGALRM after the grace period stops the tree. */
static void on_pass(int sig) {
  if (!pass_on) pass_on = sig;
}

/* The grace period between a passed-on SIGTERM/SIGINT and the SIGKILL of the tree, in seconds (at least 1). */
static unsigned grace_seconds(void) {
  const char *text = getenv("COLDSTART_CONTAIN_GRACE_MS");
  long ms = text && *text ? strtol(text, NULL, 10) : 5000;
  if (ms < 1000) ms = 1000;
  return (unsigned)((ms + 999) / 1000);
}

/* Arm the grace period's alarm once a SIGTERM/SIGINT came, and pass it on to `target` once it is known. */
static void pass_signal(pid_t target) {
  static int armed = 0, passed = 0;
  if (!pass_on) return;
  if (!armed) alarm(grace_seconds());
  armed = 1;
  if (passed || target <= 0) return;
  passed = 1;
  kill(target, pass_on);
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

/* Write `text` to a /proc file; 0 when it was written whole. */
static int write_file(const char *file, const char *text) {
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * Put the next children in a new PID namespace (and mount namespace): directly where the helper may
 * (root), else inside a new user namespace that maps its uid and gid to themselves (the app keeps
 * its ids and gains no privilege). 0 on success.
 */
static int enter_pid_ns(void) {
  if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0) return 0;
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) != 0) return -1;
  char map[64];
  write_file("/proc/self/setgroups", "deny"); /* absent before Linux 3.19, where it is not needed */
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if (write_file("/proc/self/uid_map", map) != 0) return -1;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  if (write_file("/proc/self/gid_map", map) != 0) return -1;
  return 0;
}

/* The namespace's own /proc, so that a pid the app reads there is its own; best effort. */
static void own_proc(void) {
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return;
  mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

/* COMMAND in the helper's child, with the mask the helper was started with; never returns. */
static void exec_command(char **command, const sigset_t *before) {
  sigprocmask(SIG_SETMASK, before, NULL);
  execvp(command[0], command);
  int error = errno;
  fprintf(stderr, "coldstart-contain: %s: %s\n", command[0], strerror(error));
  _exit(error == ENOENT ? 127 : 126);
}

static pid_t init_child = 0;

/* init's SIGTERM/SIGINT (the helper passing one on): to COMMAND, which init would otherwise never let through. */
static void on_init_pass(int sig) {
  if (init_child > 0) kill(init_child, sig);
}

/*
 * pid 1 of the sample's namespace: fork COMMAND, reap everything orphaned in the namespace, and when
 * COMMAND ends write its wait status to `report` and exit (the kernel kills what is left). `alive`
 * reads end of file once the helper is gone. Signals stay blocked here, but SIGTERM and SIGINT, passed on to COMMAND.
 */
static void run_init(char **command, int alive, int report, const sigset_t *before) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  char byte;
  if (read(alive, &byte, 1) == 0) _exit(125); /* the helper is already gone */
  close(alive);
  own_proc();
  pid_t child = fork();
  if (child < 0) _exit(125);
  if (child == 0) exec_command(command, before);
  init_child = child;
  struct sigaction pass = {0};
  pass.sa_handler = on_init_pass;
  sigemptyset(&pass.sa_mask);
  sigaction(SIGTERM, &pass, NULL);
  sigaction(SIGINT, &pass, NULL);
  sigset_t passed;
  sigemptyset(&passed);
  sigaddset(&passed, SIGTERM);
  sigaddset(&passed, SIGINT);
  sigprocmask(SIG_UNBLOCK, &passed, NULL);
  for (;;) {
    int st;
    pid_t reaped = waitpid(-1, &st, 0);
    if (reaped == child) {
      ssize_t written = write(report, &st, sizeof st);
      _exit(written == (ssize_t)sizeof st ? 0 : 125);
    }
    if (reaped < 0 && errno == ECHILD) _exit(125);
  }
}

/* End as `status` (a wait status) says: the same exit code, or the same signal. */
static int end_as(int status) {
  if (WIFSIGNALED(status)) {
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
  return WEXITSTATUS(status);
}

static void ignore_group_signals(void) {
  struct sigaction stop = {0};
  stop.sa_handler = on_stop;
  sigemptyset(&stop.sa_mask);
  sigaction(SIGUSR1, &stop, NULL);
  sigaction(SIGALRM, &stop, NULL);
  struct sigaction pass = {0};
  pass.sa_handler = on_pass;
  sigemptyset(&pass.sa_mask);
  sigaction(SIGTERM, &pass, NULL);
  sigaction(SIGINT, &pass, NULL);
  signal(SIGHUP, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
}

/* --pid-ns: COMMAND under its own init (run_init); the helper waits for init and ends as COMMAND did. */
static int contain_in_pid_ns(char **command, const sigset_t *before) {
  int alive[2], report[2];
  if (pipe2(alive, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
    perror("coldstart-contain: pipe");
    return 125;
  }
  if (enter_pid_ns() != 0) {
    perror("coldstart-contain: PID namespace");
    return 125;
  }
  pid_t init = fork();
  if (init < 0) {
    perror("coldstart-contain: fork");
    return 125;
  }
  if (init == 0) {
    close(alive[1]);
    close(report[0]);
    fcntl(alive[0], F_SETFL, O_NONBLOCK);
    run_init(command, alive[0], report[1], before);
  }
  close(alive[0]);
  close(report[1]);
  ignore_group_signals();
  sigprocmask(SIG_SETMASK, before, NULL);
  int st = 0;
  for (;;) {
    if (stop_now) kill(init, SIGKILL);
    /* init has a handler for these two (on_init_pass), which passes them on to COMMAND */
    if (pass_on) pass_signal(init);
    pid_t reaped = waitpid(init, &st, 0);
    if (reaped == init) break;
    if (reaped < 0 && errno != EINTR) return 125;
  }
  int status;
  if (read(report[0], &status, sizeof status) == (ssize_t)sizeof status) return end_as(status);
  /* init ended without COMMAND's status: killed (SIGUSR1, or the kernel) */
  return WIFSIGNALED(st) ? end_as(st) : 125;
}

/* --probe-pid-ns: can this process make a PID namespace and fork its init there? */
static int probe_pid_ns(void) {
  if (enter_pid_ns() != 0) return 1;
  pid_t init = fork();
  if (init < 0) return 1;
  if (init == 0) {
    own_proc();
    _exit(getpid() == 1 ? 0 : 1);
  }
  int st;
  return waitpid(init, &st, 0) == init && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* --cgroup FILE: join the cgroup whose cgroup.procs is FILE before anything forks (the runner kills it whole after the sample). */
static void join_cgroup(const char *procs) {
  char pid[32];
  snprintf(pid, sizeof pid, "%d\n", (int)getpid());
  if (write_file(procs, pid) != 0) fprintf(stderr, "coldstart-contain: cannot join %s: %s\n", procs, strerror(errno));
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe-pid-ns") == 0) return probe_pid_ns();
  int arg = 1, pid_ns = 0;
  for (; arg < argc; arg++) {
    if (strcmp(argv[arg], "--pid-ns") == 0) {
      pid_ns = 1;
    } else if (strcmp(argv[arg], "--cgroup") == 0 && arg + 1 < argc) {
      join_cgroup(argv[++arg]);
    } else {
      break;
    }
  }
  char **command = argv + arg;
  if (arg >= argc) {
    fprintf(stderr, "usage: coldstart-contain [--pid-ns] [--cgroup CGROUP.PROCS] COMMAND [ARG...]\n");
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
  if (pid_ns) return contain_in_pid_ns(command, &before);

  pid_t child = fork();
  if (child < 0) {
    perror("coldstart-contain: fork");
    return 125;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != self) _exit(125); /* the helper is already gone */
    exec_command(command, &before);
  }

  ignore_group_signals();
  sigprocmask(SIG_SETMASK, &before, NULL);

  int status = 0;
  int have_status = 0;
  while (!have_status) {
    if (stop_now) kill_children(self);
    if (pass_on) pass_signal(child);
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
  return have_status ? end_as(status) : 125;
}
