// The synthetic story generator (see story_pairs.h). A story is a plan (hero, companion, place,
// object, event, ending) told through sentence templates chosen by the seed; the summary states the
// plan in one sentence. Index draws use uniformIndex (core/util/random_index.h), so a seed gives the
// same stories everywhere.
#include <array>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "core/data/story_pairs.h"
#include "core/util/random_index.h"

namespace mixerlab {
namespace {

struct Hero {
  const char* name;
  const char* kind;
};
constexpr std::array<Hero, 24> kHeroes = {{
    {"Lily", "girl"}, {"Tom", "boy"},   {"Mia", "cat"},    {"Ben", "dog"},     {"Sara", "rabbit"},   {"Max", "bear"},
    {"Zoe", "duck"},  {"Sam", "fox"},   {"Anna", "mouse"}, {"Leo", "lion"},    {"Emma", "girl"},     {"Jack", "boy"},
    {"Rosie", "pig"}, {"Finn", "frog"}, {"Ella", "bird"},  {"Toby", "turtle"}, {"Lucy", "squirrel"}, {"Oscar", "owl"},
    {"Ruby", "hen"},  {"Noah", "boy"},  {"Daisy", "cow"},  {"Milo", "puppy"},  {"Ivy", "kitten"},    {"Hugo", "goat"},
}};
constexpr std::array<const char*, 16> kCompanions = {
    "mom",      "dad",        "grandma", "best friend",        "little brother",       "big sister", "teacher",
    "neighbor", "grandpa",    "aunt",    "old friend the owl", "new friend the snail", "cousin",     "friend the frog",
    "uncle",    "baby sister"};
constexpr std::array<const char*, 16> kPlaces = {"park",       "beach",   "forest",  "garden", "farm", "river",
                                                 "school",     "zoo",     "market",  "meadow", "hill", "lake",
                                                 "playground", "library", "kitchen", "barn"};
struct Thing {
  const char* name;
  const char* look;
};
constexpr std::array<Thing, 20> kObjects = {{
    {"red ball", "round and shiny"},
    {"blue kite", "light as a feather"},
    {"toy boat", "small and yellow"},
    {"teddy bear", "soft and brown"},
    {"golden key", "tiny and bright"},
    {"picture book", "full of colors"},
    {"green hat", "big and floppy"},
    {"shiny shell", "pink inside"},
    {"wooden train", "long and loud"},
    {"paper crown", "gold and bumpy"},
    {"music box", "old and sweet"},
    {"star sticker", "glittery"},
    {"apple pie", "warm and sweet"},
    {"silver bell", "small and loud"},
    {"pair of rain boots", "bright yellow"},
    {"jar of honey", "sticky and gold"},
    {"map", "old and torn"},
    {"flower pot", "blue with dots"},
    {"kite string", "long and white"},
    {"little drum", "red and round"},
}};
struct Event {
  const char* summary;   // what the hero did, in the summary (a template, as the sentences)
  const char* problem;   // what goes wrong (templates fill {hero}, {object}, {place})
  const char* solution;  // how it is solved
};
constexpr std::array<Event, 8> kEvents = {{
    {"lost and then found a {object}", "One day, {hero} could not find the {object} anywhere at the {place}.",
     "They looked under every bush and behind every tree until they found the {object}."},
    {"broke and then fixed a {object}", "Then the {object} fell down and broke into two pieces.",
     "Together they used glue and tape and fixed the {object} so it looked new."},
    {"shared a {object} with a {stranger}",
     "A sad little {stranger} at the {place} wanted to play with the {object} too.",
     "{hero} thought for a moment and then shared the {object} with the {stranger}."},
    {"kept a {object} dry in the rain", "Dark clouds came and big drops of rain began to fall on the {object}.",
     "They ran fast and kept the {object} dry under a big tree."},
    {"won a race with a {object}",
     "There was a big race at the {place}, and {hero} wanted to win it with the {object}.",
     "{hero} ran as fast as possible, held the {object} high and won the race."},
    {"gave a {object} to a {stranger}", "{hero} saw a {stranger} who had no toys at all.",
     "{hero} smiled and gave the {object} to the {stranger} as a gift."},
    {"got back a {object} stuck in a tree", "The {object} got stuck high up in a tall tree at the {place}.",
     "A kind bird flew up and pushed the {object} down into {hero}'s arms."},
    {"painted an old {object}", "The {object} was old and dirty, and {hero} felt a little sad.",
     "They painted the {object} with bright colors until it was beautiful."},
}};
struct Ending {
  const char* summary;  // "... and <ending>" in the summary
  const char* sentence;
};
constexpr std::array<Ending, 6> kEndings = {{
    {"learned that friends help each other", "{hero} learned that friends always help each other."},
    {"had a picnic to celebrate", "To celebrate, they had a big picnic at the {place}."},
    {"fell asleep happy", "That night, {hero} fell asleep with a happy smile."},
    {"laughed all the way home", "They laughed all the way home."},
    {"promised to be more careful", "{hero} promised to be more careful next time."},
    {"danced in the sunshine", "Then they danced together in the warm sunshine."},
}};
constexpr std::array<const char*, 6> kStrangers = {"puppy", "boy", "girl", "kitten", "bunny", "duckling"};
constexpr std::array<const char*, 4> kOpenings = {
    "Once upon a time, there was a {kind} named {hero}.", "There once was a little {kind} called {hero}.",
    "{hero} was a happy {kind} who loved to play.", "Long ago, a {kind} named {hero} lived near a {place}."};

size_t pick(std::mt19937_64& rng, size_t n) { return uniformIndex(rng, n); }

std::string fill(std::string text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

}  // namespace

std::vector<StoryPair> syntheticStoryPairs(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::tuple<size_t, size_t, size_t, size_t, size_t, size_t>> used;
  const size_t combinations =
      kHeroes.size() * kCompanions.size() * kPlaces.size() * kObjects.size() * kEvents.size() * kEndings.size();
  std::vector<StoryPair> pairs;
  while (pairs.size() < count && used.size() < combinations) {
    const size_t h = pick(rng, kHeroes.size()), c = pick(rng, kCompanions.size()), p = pick(rng, kPlaces.size()),
                 o = pick(rng, kObjects.size()), e = pick(rng, kEvents.size()), n = pick(rng, kEndings.size());
    if (!used.insert({h, c, p, o, e, n}).second) continue;
    const Hero& hero = kHeroes[h];
    const Thing& thing = kObjects[o];
    const std::string stranger = kStrangers[pick(rng, kStrangers.size())];
    auto apply = [&](std::string s) {
      s = fill(s, "{hero}", hero.name);
      s = fill(s, "{kind}", hero.kind);
      s = fill(s, "{place}", kPlaces[p]);
      s = fill(s, "{object}", thing.name);
      s = fill(s, "{stranger}", stranger);
      return s;
    };
    std::vector<std::string> sentences = {
        apply(kOpenings[pick(rng, kOpenings.size())]),
        apply(std::string("{hero} had a ") + thing.name + " that was " + thing.look + "."),
        apply(std::string(pick(rng, 2) == 0 ? "One morning" : "One sunny day") +
              ", {hero} went to the {place} with their " + kCompanions[c] + "."),
    };
    if (pick(rng, 2) == 0) sentences.push_back(apply("The sun was bright and the birds were singing at the {place}."));
    sentences.push_back(apply(kEvents[e].problem));
    if (pick(rng, 2) == 0) sentences.push_back(apply("\"What can we do?\" asked {hero}."));
    sentences.push_back(apply(kEvents[e].solution));
    sentences.push_back(apply(kEndings[n].sentence));
    std::string story;
    for (const auto& s : sentences) story += (story.empty() ? "" : " ") + s;
    const std::string summary = std::string(hero.name) + " the " + hero.kind + " " + apply(kEvents[e].summary) +
                                " at the " + kPlaces[p] + " with their " + kCompanions[c] + " and " +
                                kEndings[n].summary + ".";
    pairs.push_back({summary, story});
  }
  return pairs;
}

}  // namespace mixerlab
