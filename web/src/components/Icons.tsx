// The app's icons: a few inline SVG paths (24×24, stroked in the text colour), so nothing is
// fetched and they follow the theme. Decorative: the buttons that hold them carry the label.
import type { ReactNode } from 'react'

function Icon({ children, size = 20 }: { children: ReactNode; size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.9"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  )
}

export const SearchIcon = () => (
  <Icon>
    <circle cx="11" cy="11" r="6.5" />
    <path d="m20 20-4.3-4.3" />
  </Icon>
)

export const PlusIcon = () => (
  <Icon>
    <path d="M12 5v14M5 12h14" />
  </Icon>
)

export const PinIcon = ({ filled = false }: { filled?: boolean }) => (
  <Icon>
    <path d="M9 4h6l-1 6 3 3v2H7v-2l3-3-1-6Z" fill={filled ? 'currentColor' : 'none'} />
    <path d="M12 15v5" />
  </Icon>
)

export const TrashIcon = () => (
  <Icon>
    <path d="M4 7h16M10 11v6M14 11v6M6 7l1 12a2 2 0 0 0 2 2h6a2 2 0 0 0 2-2l1-12M9 7V4h6v3" />
  </Icon>
)

export const HistoryIcon = () => (
  <Icon>
    <path d="M4 12a8 8 0 1 0 2.4-5.7L4 8.6M4 4v4.6h4.6M12 8v4.5l3 1.8" />
  </Icon>
)

export const CloseIcon = ({ size }: { size?: number }) => (
  <Icon {...(size ? { size } : {})}>
    <path d="M6 6l12 12M18 6 6 18" />
  </Icon>
)

export const GridIcon = () => (
  <Icon>
    <rect x="4" y="4" width="7" height="7" rx="1.5" />
    <rect x="13" y="4" width="7" height="7" rx="1.5" />
    <rect x="4" y="13" width="7" height="7" rx="1.5" />
    <rect x="13" y="13" width="7" height="7" rx="1.5" />
  </Icon>
)

export const ListIcon = () => (
  <Icon>
    <path d="M9 6h11M9 12h11M9 18h11M4.5 6h.01M4.5 12h.01M4.5 18h.01" />
  </Icon>
)

export const NoteIcon = ({ size = 28 }: { size?: number }) => (
  <svg className="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
    <rect x="4" y="3" width="24" height="26" rx="5" fill="currentColor" />
    <path d="M10 11h12M10 16h12M10 21h7" stroke="var(--logo-lines)" strokeWidth="2.4" strokeLinecap="round" />
  </svg>
)
