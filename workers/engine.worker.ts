/**
 * The engine's worker: parsing, token counting, storage and (later) projection run here, never on
 * the main thread. It exposes one object; the main thread imports only its type (STYLE.md §7).
 */
import { expose } from 'comlink';
import { engine } from '../lib/engine/api';

expose(engine);
