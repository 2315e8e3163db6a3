/** Arguments shared by the scripts that change one user through the points program (user_upsert, achievement_complete). */
export interface UserOpArgs {
  ver: string;
  now: number;
  userId: string;
  /** User patch (JSON object). */
  patch: string;
  /** The points program (JSON). */
  program: string;
  /** The user's own boosts (JSON). */
  userBoosts: string;
  date: string;
  /** Id of the operation (awards derive theirs from it). */
  opId: string;
}
