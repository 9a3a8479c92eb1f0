/**
 * Following a session the agent is still writing (issue 25, "Live"): which bytes make complete
 * records, and which transcript of this tab follows which file. Pure helpers and sessionStorage;
 * the polling lives in useLiveSession.
 */

const NEWLINE = 0x0a;

/** Sessions written a line at a time: only these can be followed by reading appended bytes. */
export function isLineFile(path: string): boolean {
  return /\.jsonl$/i.test(path);
}

/**
 * How many of `bytes` are whole lines: up to and including the last newline. An incomplete last
 * line waits for its newline. At open (`atOpen`), a last line without a newline that is a whole
 * JSON record counts too: a finished file need not end in a newline.
 */
export function completeLength(bytes: Uint8Array, atOpen = false): number {
  const last = bytes.lastIndexOf(NEWLINE);
  if (last === bytes.length - 1) return bytes.length;
  if (atOpen) {
    const tail = new TextDecoder().decode(bytes.subarray(last + 1)).trim();
    if (tail === '') return bytes.length;
    if (tail.startsWith('{') && tail.endsWith('}')) {
      try {
        JSON.parse(tail);
        return bytes.length;
      } catch {
        /* a line still being written */
      }
    }
  }
  return last + 1;
}

/** What this tab knows of a transcript opened from the API: its file and the bytes of it that are in the log. */
export interface LiveLink {
  path: string;
  /** Bytes of the file in this snapshot (complete lines only). */
  offset: number;
  /** The file name the snapshots are imported under. */
  name: string;
  /** When this snapshot was taken (ISO). */
  takenAt: string;
  /** The session as the API listed it: its id and project folder (the lineage and the default cwd of a resume). */
  sessionId?: string;
  cwd?: string;
}

const KEY = (id: string) => `contextscope.live.${id}`;

export function liveLinkOf(transcriptId: string): LiveLink | null {
  if (typeof sessionStorage === 'undefined' || !transcriptId) return null;
  try {
    const raw = sessionStorage.getItem(KEY(transcriptId));
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<LiveLink>;
    if (typeof v.path !== 'string' || typeof v.offset !== 'number' || typeof v.name !== 'string') return null;
    return {
      path: v.path,
      offset: v.offset,
      name: v.name,
      takenAt: typeof v.takenAt === 'string' ? v.takenAt : new Date().toISOString(),
      ...(typeof v.sessionId === 'string' && { sessionId: v.sessionId }),
      ...(typeof v.cwd === 'string' && { cwd: v.cwd }),
    };
  } catch {
    return null;
  }
}

export function setLiveLink(transcriptId: string, link: LiveLink): void {
  try {
    sessionStorage.setItem(KEY(transcriptId), JSON.stringify(link));
  } catch {
    /* storage off: this transcript is not followed */
  }
}

/** How often the inspector asks for appended bytes: the issue wants new calls on screen within 2 s. */
export const LIVE_POLL_MS = 700;
