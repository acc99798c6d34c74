# The fault sweep's EIO (test/support/fault-sweep.ts): run a command with its stdout or stderr (argv[1])
# on a pseudo-terminal that is not its controlling terminal, relay what it writes there to this
# process's own stream, and on SIGUSR1 close the terminal's master side: from then on every write the
# command makes to that stream fails with EIO (a hung-up terminal), and no SIGHUP is sent (the
# terminal controls no session). Ends as the command ended. Other streams and stdin are inherited.
import fcntl, os, select, signal, struct, subprocess, sys, termios, tty

which = sys.argv[1]
master, slave = os.openpty()
tty.setraw(slave)
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 80, 0, 0))
out = sys.stdout.fileno() if which == 'stdout' else sys.stderr.fileno()
hung = False
def hang_up(signum, frame):
    global hung
    hung = True
signal.signal(signal.SIGUSR1, hang_up)
child = subprocess.Popen(sys.argv[2:], **({'stdout': slave} if which == 'stdout' else {'stderr': slave}))
os.close(slave)
while True:
    if hung and master >= 0:
        os.close(master)
        master = -1
    if master < 0:
        break
    try:
        ready, _, _ = select.select([master], [], [], 0.05)
    except InterruptedError:
        continue
    if ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(out, data)
code = child.wait()
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
