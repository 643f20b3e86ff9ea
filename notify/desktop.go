// desktop.go holds Desktop, the Notifier that uses beeep and the session D-Bus.

package notify

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/gen2brain/beeep"
	"github.com/godbus/dbus/v5"
)

// Desktop shows notifications with beeep: Notify for normal ones, Alert for
// critical ones. beeep's Alert also rings the bell, which writes a BEL to
// standard output where no speaker exists; with Bell false (always when a
// TUI owns the terminal) critical notifications go straight to the session
// bus with critical urgency and no bell.
type Desktop struct {
	Bell bool
}

// NewDesktop returns a Desktop notifier. It sets beeep's application name,
// which beeep keeps in a package variable, to AppName.
func NewDesktop(bell bool) *Desktop {
	beeep.AppName = AppName
	return &Desktop{Bell: bell}
}

// Notify implements Notifier.
func (d *Desktop) Notify(title, body string) error {
	return beeep.Notify(title, body, "")
}

// Alert implements Notifier.
func (d *Desktop) Alert(title, body string) error {
	if d.Bell {
		return beeep.Alert(title, body, "")
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		return fmt.Errorf("session bus: %w", err)
	}
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(2))}
	call := obj.Call("org.freedesktop.Notifications.Notify", 0, AppName, uint32(0), "", title, body, []string{}, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("org.freedesktop.Notifications.Notify: %w", call.Err)
	}
	return nil
}

// notifications is the D-Bus name of the desktop's notification server.
const notifications = "org.freedesktop.Notifications"

// Check tells, before anything is shown, whether desktop notifications can
// be: on Linux and the BSDs a session bus at address (the value of
// DBUS_SESSION_BUS_ADDRESS) with a notification server on it or startable
// through it. Its error says what to start. It never starts a bus itself.
func Check(ctx context.Context, address string) error {
	switch runtime.GOOS {
	case "darwin", "windows":
		return nil // beeep uses the system's own notifications there
	}
	if address == "" {
		return errors.New("notify: there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set): " +
			"run the listener in your desktop session, or under dbus-run-session with a notification server such as dunst")
	}
	conn, err := dbus.Connect(address, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("notify: the D-Bus session does not answer (%w): run the listener in your desktop session, or under dbus-run-session", err)
	}
	defer conn.Close()
	bus := conn.BusObject()
	var owned bool
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, notifications).Store(&owned); err != nil {
		return fmt.Errorf("notify: ask the D-Bus session for a notification server: %w", err)
	}
	if owned {
		return nil
	}
	var startable []string
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.ListActivatableNames", 0).Store(&startable); err != nil {
		return fmt.Errorf("notify: ask the D-Bus session for a notification server: %w", err)
	}
	if slices.Contains(startable, notifications) {
		return nil
	}
	return errors.New("notify: no notification server runs on the D-Bus session: start one (your desktop's, or dunst)")
}
