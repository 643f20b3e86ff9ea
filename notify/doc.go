// Package notify owns desktop notifications for announcements: beeep pop-ups for
// normal and critical announcements, levels, and grouping so a flood makes one summary.
package notify
