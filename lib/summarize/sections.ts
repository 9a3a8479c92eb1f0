/** The section headings of the summary styles (seed 003 "Structured"; Claude Code's compact summary). */
export const STRUCTURED_SECTIONS = [
  'Active Task',
  'Key Decisions & Rationale',
  'Files & Artifacts',
  'Constraints & Requirements',
  'Pending Items',
  'Session Narrative',
] as const;

export const CLAUDE_CODE_SECTIONS = [
  '1. Primary Request and Intent',
  '2. Key Technical Concepts',
  '3. Files and Code Sections',
  '4. Errors and fixes',
  '5. Problem Solving',
  '6. All user messages',
  '7. Pending Tasks',
  '8. Current Work',
  '9. Optional Next Step',
] as const;
