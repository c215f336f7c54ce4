import type { Db } from '../../core/db/client.js';
import { acceptInvitation, invite, type Person } from '../../core/people/people.js';
import type { Role } from '../../core/people/roles.js';
import { startSession } from '../../core/people/sessions.js';

/** A person on a merchant's team (or an operator, platformUuid null), as an accepted invitation makes them. */
export async function addPerson(db: Db, platformUuid: string | null, role: Role, email = `${role}-${crypto.randomUUID()}@example.com`): Promise<Person> {
  const { token } = await invite(db, platformUuid, { email, role });
  const person = await db.begin((tx) => acceptInvitation(tx, token));
  if (!person) throw new Error('the invitation was not accepted');
  return person;
}

/** A fresh session cookie value for a person, as a passkey sign-in opens one. */
export function sessionFor(db: Db, person: Person): Promise<string> {
  return startSession(db, { platformUuid: person.platformUuid, role: person.role, credential: { userId: person.id }, lifetimeMs: 3600_000 });
}
