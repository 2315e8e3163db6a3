import type { ProgramBoost, ProgramText } from '../../domain/points';

/** Arguments shared by the scripts that change one user through the points program (user_upsert, achievement_complete). */
export interface UserOpArgs {
  ver: string;
  now: number;
  userId: string;
  /** User patch (JSON object). */
  patch: string;
  program: ProgramText;
  /** The user's own boosts. */
  userBoosts: ProgramBoost[];
  date: string;
  /** Id of the operation (awards derive theirs from it). */
  opId: string;
}

/** The user's own boosts as the scripts take them (most users have none). */
export const boostsText = (b: ProgramBoost[]) => (b.length ? JSON.stringify(b) : '[]');
