// Whether the browser says it has a network (navigator.onLine), following its online and offline events.
import { useEffect, useState } from 'react'

export function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine)
  useEffect(() => {
    const follow = () => setOnline(navigator.onLine)
    window.addEventListener('online', follow)
    window.addEventListener('offline', follow)
    return () => {
      window.removeEventListener('online', follow)
      window.removeEventListener('offline', follow)
    }
  }, [])
  return online
}
