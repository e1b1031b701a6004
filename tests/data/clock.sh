#!/bin/sh

# Save the system clock to the hardware clock on shutdown.

if [ -e /run/systemd/system ] ; then
    exit 0
fi

save_clock()
{
    DEVICE=rtc0
    [ ! -x /sbin/hwclock ] && return 0
    [ ! -r /etc/default/hwclock ] || . /etc/default/hwclock

    say() { [ "$VERBOSE" = no ] || echo "$@"; }

    case "$1" in
        start)
            # nothing to do at boot
            return 0
            ;;
        stop|restart)
            echo "Saving the system clock to /dev/$DEVICE"
            if /sbin/hwclock --rtc=/dev/$DEVICE --systohc; then
                say "Hardware clock updated to `date`"
            fi
            ;;
        show)
            /sbin/hwclock --rtc=/dev/$DEVICE --show
            ;;
        *)
            echo "Usage: clock.sh {stop|restart|show}"
            return 1
            ;;
    esac
}

save_clock "$@"
