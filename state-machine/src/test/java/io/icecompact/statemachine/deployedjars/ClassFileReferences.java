package io.icecompact.statemachine.deployedjars;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What one class file names: the classes of its constant pool, the fields and methods it refers to
 * (owner, name, descriptor), and what it declares (its super class, interfaces, fields and
 * methods). Read by hand from the class file format (JVMS 4.1, 4.4), which is all a check of links
 * needs; the JDK 17 has no class file API and ASM is not on this class path.
 */
record ClassFileReferences(
    String name,
    String superName,
    List<String> interfaces,
    Set<String> declared,
    Set<String> classes,
    List<Member> members) {

  /** A field or method reference: {@code owner.name descriptor}. */
  record Member(String owner, String name, String descriptor) {
    String key() {
      return name + descriptor;
    }
  }

  static ClassFileReferences read(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    in.readInt(); // magic
    in.readUnsignedShort(); // minor
    in.readUnsignedShort(); // major
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] classIndex = new int[count];
    int[][] refs = new int[count][];
    int[][] nameAndType = new int[count][];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 3, 4 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++;
        }
        case 7 -> classIndex[i] = in.readUnsignedShort();
        case 8, 16, 19, 20 -> in.readUnsignedShort();
        case 9, 10, 11 -> refs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
        case 12 -> nameAndType[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        case 17, 18 -> in.readInt();
        default -> throw new IOException("constant pool tag " + tag);
      }
    }
    Set<String> classes = new HashSet<>();
    for (int i = 1; i < count; i++) {
      if (classIndex[i] != 0) {
        classes.add(utf8[classIndex[i]]);
      }
    }
    List<Member> members = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      if (refs[i] != null) {
        int[] nat = nameAndType[refs[i][1]];
        members.add(new Member(utf8[classIndex[refs[i][0]]], utf8[nat[0]], utf8[nat[1]]));
      }
    }
    in.readUnsignedShort(); // access flags
    String name = utf8[classIndex[in.readUnsignedShort()]];
    int superIndex = in.readUnsignedShort();
    String superName = superIndex == 0 ? null : utf8[classIndex[superIndex]];
    List<String> interfaces = new ArrayList<>();
    for (int i = in.readUnsignedShort(); i > 0; i--) {
      interfaces.add(utf8[classIndex[in.readUnsignedShort()]]);
    }
    Set<String> declared = new HashSet<>();
    for (int kind = 0; kind < 2; kind++) { // fields, then methods
      for (int i = in.readUnsignedShort(); i > 0; i--) {
        in.readUnsignedShort(); // access flags
        String memberName = utf8[in.readUnsignedShort()];
        declared.add(memberName + utf8[in.readUnsignedShort()]);
        for (int a = in.readUnsignedShort(); a > 0; a--) {
          in.readUnsignedShort();
          in.skipBytes(in.readInt());
        }
      }
    }
    return new ClassFileReferences(
        name, superName, List.copyOf(interfaces), declared, classes, List.copyOf(members));
  }
}
